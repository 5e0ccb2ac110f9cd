import Foundation

/// A value that is reached only under a lock, for state that is not `Sendable` (the writer's prepared statements and
/// memory) and yet is shared by whichever thread runs the next write transaction.
///
/// Unlike `Mutex`, the body gets the value as a plain parameter, not `inout sending`: a transaction mixes it with
/// GRDB's `Database`, which belongs to the calling task, and `sending` would refuse that. The one unchecked
/// `Sendable` is this type's, whose accesses all go through the lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private let value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// `body` with the value, the lock held throughout; not reentrant.
    func withLock<T>(_ body: (Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(value)
    }
}
