import HearthCore

/// The responses of one topic kind; every iterator is its own subscription and gets every response that arrives
/// while it lives, plus those no iterator has taken yet.
struct PermissionResponses<Topic: PermissionTopic>: AsyncSequence, Sendable {
    typealias Element = PermissionResponse<Topic>
    typealias Failure = Never

    let hub: ResponseHub
    let connection: ChildDeviceConnection

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator

        mutating func next() async -> Element? {
            await base.next()
        }

        mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await base.next(isolation: actor)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
        let id = hub.subscribe(
            offer: { asked, resolution in
                guard let response = PermissionResponse<Topic>(asked: asked, resolution: resolution) else { return false }
                continuation.yield(response)
                return true
            },
            finish: { continuation.finish() }
        )
        // Runs when the iterator is dropped or its task cancelled, as well as after `finish`.
        continuation.onTermination = { [hub] _ in hub.unsubscribe(id) }
        let connection = self.connection
        Task { await connection.keepReceiving() }
        return AsyncIterator(base: stream.makeAsyncIterator())
    }
}
