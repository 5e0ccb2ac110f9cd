extension ZMQSocket {
    /// The libzmq socket pointer, for code that calls the C API directly (e.g. benchmarks against raw libzmq).
    /// Dangling once the socket is closed.
    public var rawHandle: UnsafeMutableRawPointer { handle }
}
