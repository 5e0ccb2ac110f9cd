import Synchronization

/// The app's answer changes; each iterator is its own subscription.
struct AgeRangeUpdates: AsyncSequence, Sendable {
    typealias Element = AgeRangeService.Response
    typealias Failure = Never

    let connection: AgeRangeConnection
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
        continuation.onTermination = { _ in Task { await connection.removeWatcher(id) } }
        Task { await connection.addWatcher(id, continuation) }
        return AsyncIterator(base: stream.makeAsyncIterator())
    }
}
