import DeviceRuntime
import FlyingFox
import Foundation
import HearthCore
import HearthProtocol

/// parent-device's page for its owner: the questions waiting (approve or decline), each child's limits, and the
/// device's history, served on loopback only. Like a notebook server, it makes a random token at every start, kept
/// in `page.token` (mode 0600) with the page's address in `page.url` (0600) in the state directory; every request
/// must carry it (`?token=`, a `token` form field, `Authorization: Bearer`, or the cookie the page sets), else 401.
public final class ParentPage: Sendable {
    public let stateDirectory: String
    /// The loopback port asked for; 0 picks a free one (written to `page.url`).
    public let port: UInt16
    let token: String

    public init(stateDirectory: String, port: UInt16 = 0) {
        self.stateDirectory = stateDirectory
        self.port = port
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        token = bytes.map { String(format: "%02x", $0) }.joined()
    }

    public var tokenFile: String { stateDirectory + "/page.token" }
    public var urlFile: String { stateDirectory + "/page.url" }

    /// Serves until cancelled; a page that cannot listen is logged, and the daemon goes on without it.
    func serve(behavior: ParentBehavior, context: any DeviceContext) async {
        let address: sockaddr_in
        do {
            address = try .inet(ip4: "127.0.0.1", port: port)
        } catch {
            return context.logger.error("parent page not served", metadata: ["error": "\(error)"])
        }
        let server = HTTPServer(address: address, timeout: 10, logger: .disabled)
        await server.appendRoute("*") { [self] request in
            await respond(to: request, behavior: behavior, context: context)
        }
        let published = Task { [self] in
            do {
                try await server.waitUntilListening(timeout: 30)
                guard case .ip4(_, let port) = await server.listeningAddress else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "no IPv4 address"])
                }
                try publish(port: port)
                context.logger.info(
                    "parent page listening", metadata: ["url": "http://127.0.0.1:\(port)/", "token": "\(tokenFile)"])
            } catch {
                context.logger.error("parent page not published", metadata: ["error": "\(error)"])
            }
        }
        await withTaskCancellationHandler {
            do {
                try await server.run()
            } catch {
                if !Task.isCancelled { context.logger.error("parent page stopped", metadata: ["error": "\(error)"]) }
            }
        } onCancel: {
            Task { await server.stop(timeout: 1) }
        }
        published.cancel()
        try? FileManager.default.removeItem(atPath: urlFile)
    }

    /// Writes the token and the address, each readable by this user only.
    private func publish(port: UInt16) throws {
        try Self.writePrivate(token + "\n", to: tokenFile)
        try Self.writePrivate("http://127.0.0.1:\(port)/?token=\(token)\n", to: urlFile)
    }

    private static func writePrivate(_ text: String, to path: String) throws {
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { throw CocoaError(.fileWriteUnknown) }
    }
}
