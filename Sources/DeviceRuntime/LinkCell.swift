import Synchronization

/// The daemon's link to its broker behind a lock, with each change of whether it is up pushed to whoever listens
/// (`changes()`): a command that waits for the link wakes when it comes up, rather than polling it.
final class LinkCell: Sendable {
    private struct State {
        var link: BrokerLink
        var watchers: [Int: AsyncStream<Bool>.Continuation] = [:]
        var nextWatcher = 0
    }

    private let state: Mutex<State>

    init(_ link: BrokerLink) {
        state = Mutex(State(link: link))
    }

    /// Reads or changes the link under the lock; if the change takes the link up or down, every listener is told
    /// before the lock is released, so that listeners see the changes in the order they were made.
    func withLock<Result: Sendable>(_ body: (inout BrokerLink) -> Result) -> Result {
        state.withLock { state in
            let wasLinked = state.link.isLinked
            let result = body(&state.link)
            let linked = state.link.isLinked
            if linked != wasLinked {
                for watcher in state.watchers.values { watcher.yield(linked) }
            }
            return result
        }
    }

    /// Whether the link is up now, then at each change, until the listener stops iterating. Only the latest state
    /// is buffered: a listener that falls behind sees where the link is, not every step on the way.
    func changes() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            let id = state.nextWatcher
            state.nextWatcher += 1
            state.watchers[id] = continuation
            continuation.yield(state.link.isLinked)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }
}
