import Foundation
import Synchronization

/// The CPU time the writer's thread spent inside write transactions (from `BEGIN` to after the commit hook), summed:
/// what the engine's work costs without the sockets, the cooperative pool or the checkpointer
/// (`hearth-loadtest engine`, docs/PERFORMANCE.md).
final class WriterCPU: Sendable {
    private let nanoseconds = Atomic<UInt64>(0)

    /// The total so far.
    var total: Duration { .nanoseconds(Int64(clamping: nanoseconds.load(ordering: .relaxed))) }

    /// Runs `body`, adding the calling thread's CPU time during it to the total.
    func measure<T>(_ body: () throws -> T) rethrows -> T {
        let start = Self.threadNanoseconds()
        defer { nanoseconds.add(Self.threadNanoseconds() &- start, ordering: .relaxed) }
        return try body()
    }

    /// The calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`).
    static func threadNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
