/// Work the daemon sets off while it runs (a local request, a sync, a behaviour's timer or retry), handed to the task
/// group its `run()` owns: when the daemon stops, the group cancels each piece and waits for it to end, so none
/// outlives the daemon. Work handed over once the stop began is not started.
final class OwnedWork: Sendable {
    typealias Work = @Sendable () async -> Void

    private let stream: AsyncStream<Work>
    private let continuation: AsyncStream<Work>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Work.self, bufferingPolicy: .unbounded)
    }

    /// Hands `work` to the running daemon; false when the daemon is stopping and the work will not run.
    @discardableResult
    func add(_ work: @escaping Work) -> Bool {
        if case .enqueued = continuation.yield(work) { return true }
        return false
    }

    /// Takes no more work: `run(in:)` returns once it has started what was handed over before.
    func finish() {
        continuation.finish()
    }

    /// Starts each piece of work as a child of `group` until `finish()`, or until the calling task is cancelled.
    /// Called once, by the daemon's `run()`.
    func run(in group: inout DiscardingTaskGroup) async {
        for await work in stream {
            group.addTask { await work() }
        }
    }
}
