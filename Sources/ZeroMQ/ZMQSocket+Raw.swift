import CZeroMQ

extension ZMQSocket {
    /// The libzmq socket pointer, for code that calls the C API directly (e.g. benchmarks against raw libzmq).
    /// Dangling once the socket is closed.
    public var rawHandle: UnsafeMutableRawPointer { handle }
}

extension ZMQSocket {
    /// The descriptor libzmq makes readable when the socket's state may have changed (`ZMQ_FD`), for an event loop
    /// over more sockets than `zmq_poll` handles well. It only signals changes: after it fires, and after any send on
    /// the socket, look at `hasPendingInput` until it is false, or a message can be left unread.
    public var fileDescriptor: Int32 {
        get throws {
            let operation = "zmq_getsockopt(ZMQ_FD)"
            let handle = try liveHandle(operation)
            var fd: Int32 = -1
            var size = MemoryLayout<Int32>.size
            try check(zmq_getsockopt(handle, ZMQ_FD, &fd, &size), operation)
            return fd
        }
    }
}
