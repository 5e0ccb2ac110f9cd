import Foundation

/// Blocking work run off Swift's cooperative pool.
///
/// The pool has one thread per core (two on a small server or CI runner). Work that waits on the disk or on another
/// process there (opening a SQLite file, its migrations and syncs; polling a child's exit) stops every other task of
/// the process for as long, timeouts and daemons in the same process included.
public enum BlockingWork {
    /// Runs `body` on a thread of its own and returns what it returns or throws what it throws. The calling task
    /// suspends meanwhile; `body` runs to its end even if that task is cancelled.
    @discardableResult
    public static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
            Thread.detachNewThread {
                continuation.resume(returning: Result { () throws(E) -> T in try body() })
            }
        }
        return try result.get()
    }
}
