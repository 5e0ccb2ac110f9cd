public import HearthProtocol
import ZeroMQ

/// A DEALER connection to a local daemon's ipc socket: requests with deadlines, and a stream of pushes.
public final class LocalClient: Sendable {
    /// The daemon's endpoint, e.g. `ipc:///run/user/1000/hearth/child-device.sock`.
    public let endpoint: String
    private let peer: String
    private let loop: SocketLoop
    private let tracker: RequestTracker
    private let pushContinuation: AsyncStream<Envelope>.Continuation
    /// Messages the daemon sent without being asked (request id 0), such as an app's responses.
    public let pushes: AsyncStream<Envelope>

    /// A client of the daemon at `endpoint`; `peer` names it in errors ("child-device"). For an `ipc://` endpoint,
    /// `start()` first checks that the socket is this user's daemon's (`LocalEndpoints.verifyDaemonSocket`) and throws
    /// `LocalEndpoints.UnsafeDirectory` or `UnsafeSocket` before anything is sent.
    public init(endpoint: String, peer: String) throws {
        self.endpoint = endpoint
        self.peer = peer
        tracker = RequestTracker(peer: peer)
        (pushes, pushContinuation) = AsyncStream.makeStream(of: Envelope.self, bufferingPolicy: .unbounded)
        loop = try SocketLoop(
            name: "hearth-\(peer)-client",
            sockets: [
                .init(.dealer) { socket in
                    // On the loop's thread, before the connect: nothing queued can reach another user's listener.
                    if let path = LocalEndpoints.socketPath(ofEndpoint: endpoint) {
                        try LocalEndpoints.verifyDaemonSocket(path)
                    }
                    try socket.setLinger(milliseconds: 0)
                    try socket.setMaxMessageSize(Int64(Wire.maxFrameSize))
                    try socket.setReconnectInterval(milliseconds: 100, max: 1000)
                    try socket.connect(endpoint)
                }
            ])
    }

    /// Starts the I/O thread and the reader.
    public func start() async throws {
        try await loop.start()
        let tracker = self.tracker
        let pushContinuation = self.pushContinuation
        let inbound = loop.inbound
        Task.detached {
            for await batch in inbound {
                for item in batch {
                    guard let frame = item.message.frames.last, let envelope = try? MessageCodec.decode(frame) else {
                        continue
                    }
                    if envelope.requestID == 0 {
                        pushContinuation.yield(envelope)
                    } else {
                        tracker.resolve(envelope)
                    }
                }
            }
            pushContinuation.finish()
            tracker.close()
        }
    }

    /// Sends `message` and returns the reply; an `error` reply is thrown as `ErrorReply`. `timeout` defaults to the
    /// message's `localDeadline`.
    public func request(_ message: Message, timeout: Duration? = nil) async throws -> Message {
        let timeout = timeout ?? message.localDeadline
        let loop = self.loop
        let reply = try await tracker.request(timeout: timeout) { id in
            loop.send([MessageCodec.encode(message, requestID: id)], on: 0)
        }
        if case .error(let error) = reply.message { throw error }
        return reply.message
    }

    /// Sends a message that expects no reply.
    public func post(_ message: Message) {
        loop.send([MessageCodec.encode(message)], on: 0)
    }

    /// Closes the connection; waiting requests fail with `TransportError.closed`.
    public func close() async {
        tracker.close()
        await loop.stop()
        pushContinuation.finish()
    }
}
