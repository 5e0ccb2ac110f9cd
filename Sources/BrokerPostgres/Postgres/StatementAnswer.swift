#if PostgreSQL
import Foundation

/// The answer to a statement the writer sent, set on the connection's event loop as it arrives. `EventLoopFuture.wait`
/// schedules its callback on the loop from the waiting thread, so every wait woke the loop and then the writer again,
/// even for an answer already there (~2 wake-ups per statement; docs/decisions/0005-postgres-pipelining.md); here the
/// writer reads an answer that has arrived without either, and blocks only while it has not.
///
/// Unchecked `Sendable`, the one such type of the PostgreSQL store: an answer is a handoff between two threads, the
/// event loop setting it and the writer blocking on it, and `Synchronization` has no condition variable to block on
/// (a `Mutex` and a second primitive to sleep on would cost a lock more per statement). Every access to `result`
/// takes `arrival`'s lock.
final class StatementAnswer<Value: Sendable>: @unchecked Sendable {
    private let arrival = NSCondition()
    private var result: Result<Value, any Error>?

    /// Sets the answer (once: later calls are ignored) and wakes a writer waiting for it.
    func complete(_ result: Result<Value, any Error>) {
        arrival.lock()
        defer { arrival.unlock() }
        guard self.result == nil else { return }
        self.result = result
        arrival.broadcast()
    }

    /// Whether the answer has arrived (`wait()` would not block).
    var isAnswered: Bool {
        arrival.lock()
        defer { arrival.unlock() }
        return result != nil
    }

    /// Blocks until the answer has arrived; returns it, or throws its failure.
    func wait() throws -> Value {
        arrival.lock()
        while result == nil { arrival.wait() }
        let result = self.result!
        arrival.unlock()
        return try result.get()
    }
}
#endif
