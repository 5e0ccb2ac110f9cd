import BrokerCore
import Foundation
import HearthCore
import HearthProtocol
import Logging
import ZeroMQ

/// The local admin socket's side of the broker: an `adminRequest` frame is decoded here, run by the engine and
/// answered here. A revoked or removed device is cut off by reopening both CURVE sockets on the same endpoints:
/// every connection drops, and only enrolled keys get back in.
struct AdminEndpoint: Sendable {
    let engine: BrokerEngine
    let sockets: BrokerSockets
    /// Reads the family file, for `reload`.
    let configuration: @Sendable () throws -> Directory
    let logger: Logger

    /// Runs one message read from the admin socket and sends its reply.
    func handle(_ frames: [[UInt8]]) async {
        guard frames.count == 2, let routing = frames.first else { return }
        let requestID = MessageCodec.peekRequestID(frames[1])
        let reply = await result(of: frames[1])
        sockets.reply(BrokerFrames.admin(reply, requestID: requestID), to: routing, on: BrokerSockets.Slot.admin)
    }

    private func result(of frame: [UInt8]) async -> Message {
        let request: AdminRequest
        do {
            guard case .adminRequest(let json) = try MessageCodec.decode(frame).message else {
                return .error(
                    ErrorReply(
                        .unknownMessageType,
                        "the admin socket takes adminRequest (\(MessageType.adminRequest.hex)) only"))
            }
            request = try JSONDecoder().decode(AdminRequest.self, from: Data(json.utf8))
        } catch let error as WireError {
            return .error(ErrorReply(error.code, error.description))
        } catch {
            return .error(ErrorReply(.invalidRequest, "not an admin request: \(error)"))
        }
        switch await engine.admin(request, configuration: configuration) {
        case .failure(let error):
            return .error(error)
        case .success(let result):
            if !result.disconnectedDevices.isEmpty { await cutOff(result.disconnectedDevices) }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return .adminResult(String(decoding: (try? encoder.encode(result)) ?? Data("{}".utf8), as: UTF8.self))
        }
    }

    /// Closes every connection after another broker of the cluster revoked `keys`: only enrolled keys get back in.
    func cutOff(keys: Set<String>) async {
        await cutOff(keys.sorted())
    }

    private func cutOff(_ devices: [DeviceID]) async {
        do {
            try await sockets.reopenCURVE()
            logger.notice("closed every connection to cut off devices", metadata: ["devices": "\(devices)"])
        } catch {
            logger.critical("could not reopen the broker's sockets after a revocation", metadata: ["error": "\(error)"])
        }
    }
}
