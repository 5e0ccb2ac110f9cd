import DeviceRuntime
import Foundation
import HearthCore
import HearthProtocol
import HearthService
import Logging
import Synchronization

/// parent-device's page for its owner: the questions waiting (approve or decline), each child's limits, and the
/// device's history, served on loopback only.
///
/// Like a notebook server it makes its secrets at every start: `page.url` (mode 0600) holds the address with a
/// one-time token, exchanged at the first load for a session cookie and replaced (`PageAccess`); `page.token` (0600)
/// holds a token for scripts, sent as `Authorization: Bearer`. A request with neither a valid token nor the cookie
/// gets 401 before its body is read; a body over 64 KiB gets 413; a `Host` other than `127.0.0.1:PORT` or
/// `localhost:PORT` gets 421; a form sent from another origin gets 403; no page may frame it.
public final class ParentPage: Sendable {
    public let stateDirectory: String
    /// The loopback port asked for; 0 picks a free one (written to `page.url`).
    public let port: UInt16
    let access = PageAccess()
    /// The port it listens on, once it does (0 before).
    private let listening = Atomic<Int>(0)

    public init(stateDirectory: String, port: UInt16 = 0) {
        self.stateDirectory = stateDirectory
        self.port = port
    }

    public var tokenFile: String { stateDirectory + "/page.token" }
    public var urlFile: String { stateDirectory + "/page.url" }
    /// The session cookie's name: cookies are not kept apart by port, and two parent-devices may serve one browser.
    var cookieName: String { "hearth_page_\(listening.load(ordering: .relaxed))" }
    var boundPort: Int { listening.load(ordering: .relaxed) }

    /// Serves until cancelled; a page that cannot listen is logged, and the daemon goes on without it.
    func serve(behavior: ParentBehavior, context: any DeviceContext) async {
        let policy = HTTPListenerPolicy(
            maxBodyBytes: 64 * 1024, hosts: .loopback,
            headers: HTTPListenerPolicy.frameDenial + [("Referrer-Policy", "same-origin")])
        let listener = HTTPListener(
            name: "page", policy: policy, logger: context.logger, gate: { [self] in gate($0) },
            handler: { [self] request in await respond(to: request, behavior: behavior, context: context) })
        do {
            let bound = try await listener.start(host: "127.0.0.1", port: Int(port))
            listening.store(bound, ordering: .relaxed)
            try await BlockingWork.run { [self] in try publish(port: bound) }
            context.logger.info(
                "parent page listening", metadata: ["url": "http://127.0.0.1:\(bound)/", "token": "\(tokenFile)"])
        } catch {
            context.logger.error("parent page not served", metadata: ["error": "\(error)"])
        }
        await Self.untilCancelled()
        await listener.stop()
        try? FileManager.default.removeItem(atPath: urlFile)
    }

    /// Returns when the calling task is cancelled (the daemon's stop), without waking before.
    private static func untilCancelled() async {
        let (never, end) = AsyncStream<Never>.makeStream()
        await withTaskCancellationHandler {
            for await _ in never {}
        } onCancel: {
            end.finish()
        }
    }

    /// Writes the token for scripts and the address with the URL token, each readable by this user only.
    private func publish(port: Int) throws {
        try Self.writePrivate(access.bearer + "\n", to: tokenFile)
        try publishURL(token: access.urlToken)
    }

    /// Writes `page.url` with `token`: at start, and after each exchange spends the one before.
    func publishURL(token: String) throws {
        try Self.writePrivate("http://127.0.0.1:\(boundPort)/?token=\(token)\n", to: urlFile)
    }

    private static func writePrivate(_ text: String, to path: String) throws {
        // A fresh file every time (O_EXCL after unlink): never one another user made, nor a link they planted.
        let temporary = path + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        let bytes = Array(text.utf8)
        let written = write(fd, bytes, bytes.count)
        close(fd)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
    }
}
