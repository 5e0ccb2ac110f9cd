import HearthCore
import HearthProtocol
import HearthTransport

/// A parent app's link to parent-device for notifications: opened when the first iteration starts, it registers
/// (`parentWatch`) and renews every few seconds, so that a restarted daemon, which forgets its watchers, learns of it
/// again and pushes what was missed since the last notification yielded.
actor ParentDeviceConnection {
    /// How often a live watch is renewed.
    static let rewatchInterval: Duration = .seconds(5)

    let socketPath: String
    let timeout: Duration
    private let session: LocalSession
    private let pushed: AsyncStream<ParentNotification>
    private var pushConsumer: Task<Void, Never>?
    private struct Watcher {
        var continuation: AsyncStream<ParentNotification>.Continuation
        /// The last notification yielded (or the daemon's head when watching began): only newer ones are yielded.
        var cursor: UInt64?
    }

    private var watchers: [UInt64: Watcher] = [:]
    private var watchTask: Task<Void, Never>?

    init(socketPath: String, timeout: Duration) {
        self.socketPath = socketPath
        self.timeout = timeout
        let (pushed, sink) = AsyncStream.makeStream(of: ParentNotification.self)
        self.pushed = pushed
        session = LocalSession(socketPath: socketPath, peer: "parent-device at \(socketPath)") { envelope in
            if case .parentNotification(let notification) = envelope.message { sink.yield(notification) }
        }
    }

    func addWatcher(_ id: UInt64, after: UInt64?, _ continuation: AsyncStream<ParentNotification>.Continuation) {
        watchers[id] = Watcher(continuation: continuation, cursor: after)
        if pushConsumer == nil {
            let pushed = self.pushed
            pushConsumer = Task { [weak self] in
                for await notification in pushed { await self?.deliver(notification) }
            }
        }
        guard watchTask == nil else { return }
        watchTask = Task { await keepWatching() }
    }

    func removeWatcher(_ id: UInt64) {
        watchers[id] = nil
        if watchers.isEmpty {
            watchTask?.cancel()
            watchTask = nil
        }
    }

    func close() async {
        watchTask?.cancel()
        watchTask = nil
        for watcher in watchers.values { watcher.continuation.finish() }
        watchers = [:]
        await session.close()
    }

    private func deliver(_ notification: ParentNotification) {
        for (id, watcher) in watchers where notification.id > (watcher.cursor ?? 0) {
            watchers[id]?.cursor = notification.id
            watcher.continuation.yield(notification)
        }
    }

    /// Where the daemon should resume: after the oldest position a watcher holds; nil when none holds one yet.
    private var resumePoint: UInt64? { watchers.values.compactMap(\.cursor).min() }

    private func started(head: UInt64) {
        for (id, watcher) in watchers where watcher.cursor == nil { watchers[id]?.cursor = head }
    }

    private func keepWatching() async {
        while !Task.isCancelled, !watchers.isEmpty {
            var watching = false
            do {
                let client = try await session.connected()
                do {
                    let reply = try await client.request(.parentWatch(after: resumePoint), timeout: timeout)
                    if case .parentWatching(let head) = reply {
                        started(head: head)
                        watching = true
                    }
                } catch {
                    await session.discard(client, after: error)
                }
            } catch {}
            try? await Task.sleep(for: watching ? Self.rewatchInterval : .milliseconds(200))
        }
    }
}
