import Foundation
import HearthCore

/// The responses of one topic kind; every iterator is its own subscription and gets every response that arrives
/// while it lives, plus those no iterator has taken yet.
///
/// Asking an iterator for its next element tells the hub the app has handled the one before: that is when the
/// daemon is told to drop it, so a response the app never finished handling comes again.
struct PermissionResponses<Topic: QuestionTopic>: AsyncSequence, Sendable {
    typealias Element = PermissionResponse<Topic>
    typealias Failure = Never

    let hub: ResponseHub
    let connection: ChildDeviceConnection

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator
        let hub: ResponseHub
        let subscriber: UInt64
        /// The question of the element last returned, handled once the next is asked for.
        var taken: UUID?

        mutating func next() async -> Element? {
            handledTaken()
            let element = await base.next()
            taken = element?.question.id
            return element
        }

        mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            handledTaken()
            let element = await base.next(isolation: actor)
            taken = element?.question.id
            return element
        }

        private mutating func handledTaken() {
            guard let taken else { return }
            self.taken = nil
            hub.handled(taken, by: subscriber)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
        let id = hub.subscribe(
            offer: { asked, resolution in
                guard let response = PermissionResponse<Topic>(asked: asked, resolution: resolution) else {
                    return false
                }
                continuation.yield(response)
                return true
            },
            finish: { continuation.finish() }
        )
        // Runs when the iterator is dropped or its task cancelled, as well as after `finish`.
        continuation.onTermination = { [hub] _ in hub.unsubscribe(id) }
        let connection = self.connection
        Task { await connection.keepReceiving() }
        return AsyncIterator(base: stream.makeAsyncIterator(), hub: hub, subscriber: id)
    }
}
