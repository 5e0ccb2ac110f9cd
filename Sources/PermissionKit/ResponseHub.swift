import Foundation
import HearthCore
import Synchronization

/// Fans the daemon's responses out to every live iteration of `updates`/`responses(for:)`, once per question.
///
/// A response that arrives while no iteration wants its topic is kept (and not acknowledged) until one does, so an
/// app that starts iterating late still gets it. Once an iteration has taken a response, the daemon is told to drop it.
final class ResponseHub: Sendable {
    /// Offers a response to one iteration: it converts and yields it, returning false when the topic is not its kind.
    typealias Offer = @Sendable (AskedQuestion, Resolution) -> Bool

    private struct Subscriber {
        let offer: Offer
        let finish: @Sendable () -> Void
    }

    private struct Pending {
        var asked: AskedQuestion
        var resolution: Resolution
        var inboxID: UInt64?
    }

    private struct State: ~Copyable {
        var nextID: UInt64 = 1
        var subscribers: [UInt64: Subscriber] = [:]
        var pending: [Pending] = []
        /// Questions already yielded in this process: a re-push after a reconnect is acknowledged, not yielded again.
        var delivered: Set<UUID> = []
        var acknowledge: (@Sendable (UInt64) -> Void)?
    }

    private let state = Mutex(State())

    init() {}

    /// Sets what acknowledges a taken response to the daemon.
    func setAcknowledger(_ acknowledge: @escaping @Sendable (UInt64) -> Void) {
        state.withLock { $0.acknowledge = acknowledge }
    }

    /// True while at least one iteration is live.
    var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty } }

    /// Responses waiting for an iteration that wants them.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Hands a response to every interested iteration, or keeps it until one exists. `inboxID` is nil for a response
    /// that came in an ask's reply rather than from the daemon's inbox.
    func receive(_ asked: AskedQuestion, _ resolution: Resolution, inboxID: UInt64?) {
        let (ack, acknowledge) = state.withLock { state -> (Bool, (@Sendable (UInt64) -> Void)?) in
            let id = asked.question.id
            if state.delivered.contains(id) { return (true, state.acknowledge) }
            // Yielding under the lock keeps every iteration's order the arrival order; yield never re-enters the hub.
            var taken = false
            for subscriber in state.subscribers.values where subscriber.offer(asked, resolution) { taken = true }
            if taken {
                state.delivered.insert(id)
                return (true, state.acknowledge)
            }
            if let index = state.pending.firstIndex(where: { $0.asked.question.id == id }) {
                if state.pending[index].inboxID == nil { state.pending[index].inboxID = inboxID }
            } else {
                state.pending.append(Pending(asked: asked, resolution: resolution, inboxID: inboxID))
            }
            return (false, nil)
        }
        if ack, let inboxID, let acknowledge { acknowledge(inboxID) }
    }

    /// Registers an iteration and hands it the kept responses it wants; returns its id for `unsubscribe`.
    func subscribe(offer: @escaping Offer, finish: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, taken, acknowledge) = state.withLock { state -> (UInt64, [UInt64], (@Sendable (UInt64) -> Void)?) in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(offer: offer, finish: finish)
            var taken: [UInt64] = []
            var kept: [Pending] = []
            for item in state.pending {
                if offer(item.asked, item.resolution) {
                    state.delivered.insert(item.asked.question.id)
                    if let inboxID = item.inboxID { taken.append(inboxID) }
                } else {
                    kept.append(item)
                }
            }
            state.pending = kept
            return (id, taken, state.acknowledge)
        }
        if let acknowledge { taken.forEach(acknowledge) }
        return id
    }

    /// Forgets an iteration that ended.
    func unsubscribe(_ id: UInt64) {
        // Returned out of the lock so that releasing the subscriber's stream, which may run its termination handler
        // (and so call back here), happens with the lock free.
        let removed = state.withLock { $0.subscribers.removeValue(forKey: id) }
        _ = removed
    }

    /// Ends every live iteration.
    func finishAll() {
        let subscribers = state.withLock { state in
            defer { state.subscribers = [:] }
            return state.subscribers
        }
        for subscriber in subscribers.values { subscriber.finish() }
    }
}
