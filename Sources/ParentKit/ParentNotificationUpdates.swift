import HearthCore
import Synchronization

/// The notifications of one iteration; each iterator is its own subscription.
struct ParentNotificationUpdates: AsyncSequence, Sendable {
    typealias Element = ParentNotification
    typealias Failure = Never

    let connection: ParentDeviceConnection
    /// Resume after this notification; nil: from the moment the iteration starts.
    let after: UInt64?
    private static let nextID = Atomic<UInt64>(0)

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator

        mutating func next() async -> Element? { await base.next() }

        mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await base.next(isolation: actor)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
        let id = Self.nextID.add(1, ordering: .relaxed).newValue
        let connection = self.connection
        let after = self.after
        continuation.onTermination = { _ in Task { await connection.removeWatcher(id) } }
        Task { await connection.addWatcher(id, after: after, continuation) }
        return AsyncIterator(base: stream.makeAsyncIterator())
    }
}
