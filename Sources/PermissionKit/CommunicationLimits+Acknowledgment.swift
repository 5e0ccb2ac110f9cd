import Foundation
import HearthCore
import HearthProtocol
import HearthTransport

extension CommunicationLimits {
    /// Records in the family's history that the child acknowledged the significant update `description` of this
    /// app (the `acknowledgmentAlert` flow), through child-device to the broker. A daemon or broker that predates
    /// acknowledgments (protocol version 3) cannot record it, and the flow goes on without: the question still
    /// reaches the parents. Throws `AskFailure` otherwise: `invalidText` for a description breaking its rule,
    /// `notAvailable` with `rateLimited` past 10 an hour for this app, or the daemon's reason.
    func recordAcknowledgment(of description: String) async throws {
        let reply: Message
        do {
            reply = try await connection.request(
                .ageRange(.acknowledgeUpdate(app: bundleID, description: description)))
        } catch let reply as ErrorReply where reply.code == .unsupportedVersion || reply.code == .unknownMessageType {
            return
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw AskFailure(error, socketPath: socketPath)
        }
        guard case .ok = reply else {
            throw AskFailure.unknown(
                reason: TransportError.unexpectedReply(peer: connection.peerName, type: reply.typeCode).description)
        }
    }
}
