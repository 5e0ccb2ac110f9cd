import Foundation
public import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A small HTTP/1.1 server for the daemons' own listeners (the ops endpoint, parent-device's page), on SwiftNIO.
///
/// It serves one request per connection and refuses before any handler sees it: a `Host` its policy does not accept
/// (421), what `gate` refuses from the head alone (its response, the body unread), and a body over the policy's
/// limit (413, unread); each refusal closes the connection. A failing `accept` (no descriptor, no kernel memory) is
/// never the listener's end: it waits a moment and accepts again (`AcceptErrorLog`).
public final class HTTPListener: Sendable {
    /// Answers from the head alone (no body read yet), or nil to read the body and call the handler.
    public typealias Gate = @Sendable (HTTPListenerRequest) -> HTTPListenerResponse?
    public typealias Handler = @Sendable (HTTPListenerRequest) async -> HTTPListenerResponse

    /// Names the listener in logs and metrics (`ops`, `page`).
    public let name: String
    public let policy: HTTPListenerPolicy
    let gate: Gate
    let handler: Handler
    let logger: Logger
    private let acceptErrors: AcceptErrorLog
    private let channel = Mutex<(any Channel)?>(nil)

    public init(
        name: String, policy: HTTPListenerPolicy, logger: Logger, gate: @escaping Gate = { _ in nil },
        handler: @escaping Handler
    ) {
        self.name = name
        self.policy = policy
        self.logger = logger
        self.gate = gate
        self.handler = handler
        acceptErrors = AcceptErrorLog(listener: name, logger: logger)
    }

    /// Listens on `host:port` (0: a free port) and returns the port; throws if it cannot (a port in use).
    public func start(host: String, port: Int) async throws -> Int {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { [acceptErrors] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptBackoffHandler(shouldForwardIOErrorCaught: false) { acceptErrors.backoff(after: $0) })
                }
            }
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
                    try pipeline.addHandler(HTTPListenerHandler(listener: self))
                }
            }
        let bound = try await bootstrap.bind(host: host, port: port).get()
        channel.withLock { $0 = bound }
        return bound.localAddress?.port ?? port
    }

    /// Stops listening; requests already read are still answered.
    public func stop() async {
        let bound = channel.withLock { channel in
            defer { channel = nil }
            return channel
        }
        try? await bound?.close()
    }

    /// The response that refuses `request` from its head, if any: a foreign `Host`, then the gate's.
    func refusal(for request: HTTPListenerRequest, port: Int) -> HTTPListenerResponse? {
        guard policy.accepts(host: request.headers["host"], port: port) else {
            return .text(421, "421: this server answers to 127.0.0.1:\(port) or localhost:\(port) only")
        }
        return gate(request)
    }
}
