import CZeroMQ

extension ZMQContext {
    /// Background I/O threads (`ZMQ_IO_THREADS`, default 1); set before the first socket is created.
    public func setIOThreads(_ count: Int32) throws {
        try set(ZMQ_IO_THREADS, count, "ZMQ_IO_THREADS")
    }

    /// Most sockets the context may hold (`ZMQ_MAX_SOCKETS`, default 1023); each also costs a file descriptor.
    public func setMaxSockets(_ count: Int32) throws {
        try set(ZMQ_MAX_SOCKETS, count, "ZMQ_MAX_SOCKETS")
    }

    private func set(_ option: Int32, _ value: Int32, _ name: String) throws {
        try withPointer("zmq_ctx_set(\(name))") { pointer in
            guard zmq_ctx_set(pointer, option, value) == 0 else { throw ZMQError.last("zmq_ctx_set(\(name))") }
        }
    }
}
