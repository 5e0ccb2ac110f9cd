import Synchronization

/// Tells whoever listens that events were applied (`ParentBehavior.applied`): the page, after an answer, waits for the
/// broker's event to reach the store by listening, rather than by reading the store again and again.
final class AppliedSignal: Sendable {
    private struct State {
        var watchers: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextWatcher = 0
    }

    private let state = Mutex(State())

    /// One element at once (so the listener checks where things stand), then one after each applied batch, until the
    /// listener stops iterating. Only one is buffered: a listener that falls behind checks once, not once per batch.
    func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            defer { state.nextWatcher += 1 }
            state.watchers[state.nextWatcher] = continuation
            return state.nextWatcher
        }
        continuation.yield()
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Events were applied and committed: every listener checks again.
    func signal() {
        state.withLock { state in
            for watcher in state.watchers.values { watcher.yield() }
        }
    }
}
