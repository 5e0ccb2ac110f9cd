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

    /// Whether a connection decodes messages in place in a shared receive buffer (`ZMQ_ZERO_COPY_RECV`, default on).
    /// Off, each connection keeps a plain 8 KiB buffer and messages are copied out of it: the shared buffer also
    /// reserves reference counters for the messages it may hold (measured: ~5 KiB more per connection).
    public func setZeroCopyReceive(_ on: Bool) throws {
        // ZMQ_ZERO_COPY_RECV (10): libzmq 4.3 implements it, but its header declares it only with the draft API.
        try set(10, on ? 1 : 0, "ZMQ_ZERO_COPY_RECV")
    }

    private func set(_ option: Int32, _ value: Int32, _ name: String) throws {
        try withPointer("zmq_ctx_set(\(name))") { pointer in
            guard zmq_ctx_set(pointer, option, value) == 0 else { throw ZMQError.last("zmq_ctx_set(\(name))") }
        }
    }
}
