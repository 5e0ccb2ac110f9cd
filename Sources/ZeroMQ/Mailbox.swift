import Synchronization

/// A single-consumer queue that hands its consumer everything buffered at once.
///
/// The I/O thread pushes what one `zmq_poll` pass read; the consumer takes all that piled up while it was busy,
/// which is what lets the broker group many commands into one SQLite commit.
public final class Mailbox<Item: Sendable>: AsyncSequence, Sendable {
    public typealias Element = [Item]

    private struct State: ~Copyable {
        var items: [Item] = []
        var waiter: CheckedContinuation<[Item]?, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Items waiting to be taken.
    public var count: Int { state.withLock { $0.items.count } }

    /// Appends items; returns false (dropping them) once the mailbox is finished.
    @discardableResult
    public func push(_ items: [Item]) -> Bool {
        guard !items.isEmpty else { return true }
        let resume: (CheckedContinuation<[Item]?, Never>, [Item])? = state.withLock { state in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                let all = state.items.isEmpty ? items : state.items + items
                state.items = []
                return (waiter, all)
            }
            state.items.append(contentsOf: items)
            return nil
        }
        if let (waiter, all) = resume { waiter.resume(returning: all) }
        return true
    }

    /// Ends the sequence once the buffered items are taken.
    public func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<[Item]?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Everything buffered, waiting if there is nothing; nil when finished and drained, or when the task is cancelled.
    public func take() async -> [Item]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Item]?, Never>) in
                let immediate: [Item]?? = state.withLock { state in
                    if !state.items.isEmpty {
                        defer { state.items = [] }
                        return .some(state.items)
                    }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<[Item]?, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let mailbox: Mailbox
        public mutating func next() async -> [Item]? { await mailbox.take() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(mailbox: self) }
}
