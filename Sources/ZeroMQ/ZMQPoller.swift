import CZeroMQ

/// A `zmq_poll` set of sockets and raw file descriptors, each polled for input.
public struct ZMQPoller {
    private var items: [zmq_pollitem_t] = []
    // Keeps polled sockets alive so their handles stay valid while in the set.
    private var sockets: [ZMQSocket] = []

    /// Creates an empty poller.
    public init() {}

    /// Adds `socket` for input readiness and returns its item index.
    @discardableResult
    public mutating func add(_ socket: ZMQSocket) -> Int {
        sockets.append(socket)
        items.append(zmq_pollitem_t(socket: socket.handle, fd: -1, events: Int16(ZMQ_POLLIN), revents: 0))
        return items.count - 1
    }

    /// Adds a file descriptor (e.g. `WakeSignal.fileDescriptor`) for input readiness and returns its item index.
    @discardableResult
    public mutating func add(fileDescriptor: Int32) -> Int {
        items.append(zmq_pollitem_t(socket: nil, fd: fileDescriptor, events: Int16(ZMQ_POLLIN), revents: 0))
        return items.count - 1
    }

    /// Waits up to timeoutMilliseconds (-1 = forever). Returns the number of ready items; EINTR returns 0.
    ///
    /// Throws `ETERM` once a polled socket's context is shut down, and `ENOTSOCK` if a polled socket was closed.
    public mutating func poll(timeoutMilliseconds: Int) throws -> Int {
        for index in items.indices { items[index].revents = 0 }
        if sockets.contains(where: { $0.isClosed }) {
            throw ZMQError(code: ENOTSOCK, operation: "zmq_poll")
        }
        let rc = items.withUnsafeMutableBufferPointer { buffer in
            zmq_poll(buffer.baseAddress, Int32(buffer.count), timeoutMilliseconds)
        }
        if rc >= 0 { return Int(rc) }
        let code = zmq_errno()
        // revents are unspecified after a failed poll; clear them so isReadable stays false.
        for index in items.indices { items[index].revents = 0 }
        if code == EINTR { return 0 }
        throw ZMQError(code: code, operation: "zmq_poll")
    }

    /// True if item `index` was readable after the last `poll`.
    public func isReadable(_ index: Int) -> Bool {
        items[index].revents & Int16(ZMQ_POLLIN) != 0
    }
}
