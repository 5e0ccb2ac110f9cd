import Synchronization

/// The acknowledgements still on their way to the daemon, so `close()` can let them land first: an app that takes a
/// response and quits at once must not get it again on its next start.
final class AcknowledgementTracker: Sendable {
    private let tasks = Mutex<[UInt64: Task<Void, Never>]>([:])

    func start(_ inboxID: UInt64, _ body: @escaping @Sendable () async -> Void) {
        tasks.withLock { tasks in
            tasks[inboxID] = Task { [weak self] in
                await body()
                _ = self?.tasks.withLock { $0.removeValue(forKey: inboxID) }
            }
        }
    }

    /// Waits for every acknowledgement started so far (each has the request deadline).
    func drain() async {
        for task in tasks.withLock({ Array($0.values) }) { await task.value }
    }
}
