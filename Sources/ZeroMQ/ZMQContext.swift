import CZeroMQ
import Synchronization

/// A libzmq context. Contexts are thread-safe; sockets keep their context alive.
public final class ZMQContext: @unchecked Sendable {
    private enum State {
        case active
        case terminating
        case terminated
    }

    // The raw pointer never changes; the mutex guards against using it after zmq_ctx_term freed it.
    private let pointer: UnsafeMutableRawPointer
    private let state = Mutex(State.active)

    /// Creates a context with libzmq's default settings.
    public init() throws {
        guard let pointer = zmq_ctx_new() else { throw ZMQError.last("zmq_ctx_new") }
        self.pointer = pointer
    }

    deinit {
        terminate()
    }

    /// Makes blocking calls on every socket of this context fail with `ETERM`; sockets must still be closed.
    public func shutdown() {
        state.withLock { state in
            guard case .active = state else { return }
            _ = zmq_ctx_shutdown(pointer)
        }
    }

    /// Terminates the context, blocking until all its sockets are closed. Idempotent.
    ///
    /// Blocks forever if a socket with unsent messages has an infinite linger; set linger before closing.
    public func terminate() {
        let shouldTerminate = state.withLock { state -> Bool in
            guard case .active = state else { return false }
            state = .terminating
            return true
        }
        guard shouldTerminate else { return }
        // The lock is not held here: other threads may still call shutdown() or close sockets.
        while zmq_ctx_term(pointer) != 0, zmq_errno() == EINTR {}
        state.withLock { $0 = .terminated }
    }

    /// Runs `body` with the raw context while it is guaranteed not to be freed.
    internal func withPointer<R>(_ operation: String, _ body: (UnsafeMutableRawPointer) throws -> R) throws -> R {
        try state.withLock { state in
            guard case .active = state else { throw ZMQError(code: ETERM, operation: operation) }
            return try body(pointer)
        }
    }
}
