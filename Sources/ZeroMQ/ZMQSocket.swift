import CZeroMQ

/// A libzmq socket. Not thread-safe: use it from one thread at a time.
public final class ZMQSocket {
    /// The socket pattern this socket was created with.
    public let type: ZMQSocketType
    /// The raw libzmq socket; dangling once `isClosed` is true.
    internal private(set) var handle: UnsafeMutableRawPointer
    /// True once `close()` has run.
    public private(set) var isClosed = false

    // Held so the context cannot be terminated by deinit while this socket is open.
    private let context: ZMQContext
    // Heap-allocated so libzmq's inline small-message storage has a stable address; reused across receives.
    private let message: UnsafeMutablePointer<zmq_msg_t>

    /// Creates a socket of `type` in `context`; throws `ETERM` if the context was terminated.
    public init(context: ZMQContext, type: ZMQSocketType) throws {
        let handle = try context.withPointer("zmq_socket") { pointer in
            guard let handle = zmq_socket(pointer, type.rawValue) else { throw ZMQError.last("zmq_socket") }
            return handle
        }
        self.context = context
        self.type = type
        self.handle = handle
        message = .allocate(capacity: 1)
    }

    deinit {
        close()
        message.deallocate()
    }

    /// Binds to `endpoint`, e.g. `tcp://127.0.0.1:0` or `inproc://name`.
    public func bind(_ endpoint: String) throws {
        try check(zmq_bind(liveHandle("zmq_bind"), endpoint), "zmq_bind(\(endpoint))")
    }

    /// Connects to `endpoint`; libzmq reconnects in the background.
    public func connect(_ endpoint: String) throws {
        try check(zmq_connect(liveHandle("zmq_connect"), endpoint), "zmq_connect(\(endpoint))")
    }

    /// Stops listening on a previously bound `endpoint`.
    public func unbind(_ endpoint: String) throws {
        try check(zmq_unbind(liveHandle("zmq_unbind"), endpoint), "zmq_unbind(\(endpoint))")
    }

    /// Disconnects from a previously connected `endpoint`.
    public func disconnect(_ endpoint: String) throws {
        try check(zmq_disconnect(liveHandle("zmq_disconnect"), endpoint), "zmq_disconnect(\(endpoint))")
    }

    /// The last endpoint bound (`ZMQ_LAST_ENDPOINT`), with the real port for `tcp://…:0` binds.
    public var lastEndpoint: String {
        get throws {
            let operation = "zmq_getsockopt(ZMQ_LAST_ENDPOINT)"
            let handle = try liveHandle(operation)
            var buffer = [CChar](repeating: 0, count: 1024)
            var size = buffer.count
            try check(zmq_getsockopt(handle, ZMQ_LAST_ENDPOINT, &buffer, &size), operation)
            return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Sends all frames as one multipart message. Returns false (and sends nothing) if dontWait and the socket would block on the first frame.
    ///
    /// Throws `EINVAL` for an empty frame list. `EINTR` is retried. Only the first frame can block:
    /// libzmq admits the remaining parts of a started message without a high-water-mark check.
    @discardableResult
    public func send(_ frames: [[UInt8]], dontWait: Bool = false) throws -> Bool {
        let operation = "zmq_send"
        let handle = try liveHandle(operation)
        guard !frames.isEmpty else { throw ZMQError(code: EINVAL, operation: "\(operation)(no frames)") }
        let last = frames.count - 1
        for (index, frame) in frames.enumerated() {
            var flags: Int32 = index < last ? ZMQ_SNDMORE : 0
            if dontWait && index == 0 { flags |= ZMQ_DONTWAIT }
            while true {
                let rc = frame.withUnsafeBytes { zmq_send(handle, $0.baseAddress, $0.count, flags) }
                if rc >= 0 { break }
                let code = zmq_errno()
                if code == EINTR { continue }
                if code == EAGAIN && dontWait && index == 0 { return false }
                throw ZMQError(code: code, operation: operation)
            }
        }
        return true
    }

    /// Receives one whole multipart message; nil if dontWait and nothing is ready.
    ///
    /// At most `maxFrames` frames are copied out; the rest of the message is read and freed frame by frame (counted in
    /// `discardedFrames`), so a message of many large frames costs no copy of them. libzmq itself hands over no frame
    /// of a message before its last has arrived, so what a peer can make it hold is bounded by the socket's options
    /// (`ZMQ_MAXMSGSIZE` per frame, `ZMQ_RCVHWM` per connection) and not here.
    ///
    /// `userId` comes from the first frame carrying ZAP metadata (not frame 0 on ROUTER, whose routing-id frame has none).
    /// `EINTR` is retried; use `ZMQContext.shutdown()` to break a blocking receive.
    public func receive(dontWait: Bool = false, maxFrames: Int = .max) throws -> ZMQMessage? {
        let operation = "zmq_msg_recv"
        let handle = try liveHandle(operation)
        var frames: [[UInt8]] = []
        var discarded = 0
        var userId: String?
        var source: Int32 = -1
        var more = true
        while more {
            zmq_msg_init(message)
            defer { zmq_msg_close(message) }
            // Later parts of a multipart message are already queued, so only the first needs DONTWAIT.
            let first = frames.isEmpty && discarded == 0
            let flags: Int32 = dontWait && first ? ZMQ_DONTWAIT : 0
            while zmq_msg_recv(message, handle, flags) < 0 {
                let code = zmq_errno()
                if code == EINTR { continue }
                if code == EAGAIN && dontWait && first { return nil }
                throw ZMQError(code: code, operation: operation)
            }
            more = zmq_msg_more(message) != 0
            // Like User-Id, from the first frame that has it: a ROUTER's routing-id frame may not.
            if source < 0 { source = zmq_msg_get(message, ZMQ_SRCFD) }
            guard frames.count < maxFrames else {
                discarded += 1
                continue
            }
            // A ROUTER's synthesized routing-id frame has no metadata, so look past it.
            if userId == nil, let value = zmq_msg_gets(message, "User-Id") {
                userId = String(cString: value)
            }
            frames.append(Self.bytes(of: message))
        }
        return ZMQMessage(frames: frames, userId: userId, discardedFrames: discarded, sourceDescriptor: source)
    }

    private static func bytes(of message: UnsafeMutablePointer<zmq_msg_t>) -> [UInt8] {
        let size = zmq_msg_size(message)
        let data = zmq_msg_data(message)
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            if size > 0, let data, let base = buffer.baseAddress {
                base.initialize(from: data.assumingMemoryBound(to: UInt8.self), count: size)
            }
            count = size
        }
    }

    /// True when a whole message can be received without blocking (`ZMQ_EVENTS & ZMQ_POLLIN`).
    public var hasPendingInput: Bool {
        get throws {
            let operation = "zmq_getsockopt(ZMQ_EVENTS)"
            let handle = try liveHandle(operation)
            var events: Int32 = 0
            var size = MemoryLayout<Int32>.size
            try check(zmq_getsockopt(handle, ZMQ_EVENTS, &events, &size), operation)
            return events & ZMQ_POLLIN != 0
        }
    }

    /// Closes the socket with its current linger; idempotent. Set linger first if unsent messages must not delay `terminate()`.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        _ = zmq_close(handle)
    }

    /// The handle, or `ENOTSOCK` once closed (libzmq would otherwise touch freed memory).
    internal func liveHandle(_ operation: String) throws -> UnsafeMutableRawPointer {
        guard !isClosed else { throw ZMQError(code: ENOTSOCK, operation: operation) }
        return handle
    }

    /// Throws the current `zmq_errno()` when `rc` is -1.
    internal func check(_ rc: Int32, _ operation: @autoclosure () -> String) throws {
        guard rc != 0 else { return }
        // Read errno before building the operation string, which may allocate.
        let code = zmq_errno()
        throw ZMQError(code: code, operation: operation())
    }
}
