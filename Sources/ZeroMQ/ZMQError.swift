import CZeroMQ

/// An error reported by libzmq (or by this binding), carrying the errno value and the failing call.
public struct ZMQError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The errno value (libzmq-specific codes such as `ETERM` included).
    public let code: Int32
    /// The call that failed, e.g. `zmq_bind(tcp://127.0.0.1:0)`.
    public let operation: String

    /// Creates an error with an explicit errno value.
    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// The operation followed by `zmq_strerror(code)`.
    public var description: String {
        "\(operation): \(String(cString: zmq_strerror(code)))"
    }

    /// True for `EAGAIN`: a non-blocking call had nothing to do.
    public var isWouldBlock: Bool { code == EAGAIN }

    /// True for `ETERM`: the context was shut down or terminated.
    public var isTerminated: Bool { code == ETERM }

    /// True for `EINTR`: a signal interrupted the call.
    public var isInterrupted: Bool { code == EINTR }

    /// The error for the calling thread's current `zmq_errno()`.
    public static func last(_ operation: String) -> ZMQError {
        ZMQError(code: zmq_errno(), operation: operation)
    }
}
