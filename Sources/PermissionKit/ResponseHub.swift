import Foundation
import HearthCore
import Synchronization

/// Fans the daemon's responses out to every live iteration of `updates`/`responses(for:)`, once per question, and
/// acknowledges each to the daemon only once the app has handled it.
///
/// A response that arrives while no iteration wants its topic is kept (and not acknowledged) until one does, so an
/// app that starts iterating late still gets it. A yielded response is *held* by the iterations it went to; it is
/// handled when one of them asks for its next element (or the app calls `acknowledge`), and acknowledged once every
/// holder has moved on or ended. A response whose holders all ended without handling it is kept again, for the next
/// iteration; the daemon keeps it too, so an app that crashes while handling a response gets it on its next start.
final class ResponseHub: Sendable {
    /// Offers a response to one iteration: it converts and yields it, returning false when the topic is not its kind.
    typealias Offer = @Sendable (AskedQuestion, Resolution) -> Bool
    typealias Acknowledge = @Sendable (UInt64) -> Void

    private struct Subscriber {
        let offer: Offer
        let finish: @Sendable () -> Void
    }

    private struct Pending {
        var asked: AskedQuestion
        var resolution: Resolution
        var inboxID: UInt64?
    }

    /// A yielded response not yet handled by every iteration it went to.
    private struct Held {
        var response: Pending
        var holders: Set<UInt64>
        var handledOnce = false
    }

    private struct State: ~Copyable {
        var nextID: UInt64 = 1
        var subscribers: [UInt64: Subscriber] = [:]
        var pending: [Pending] = []
        var held: [UUID: Held] = [:]
        /// Questions handled in this process: a re-push after a reconnect is acknowledged, not yielded again.
        var handled: Set<UUID> = []
        var acknowledge: Acknowledge?
    }

    private let state = Mutex(State())

    init() {}

    /// Sets what acknowledges a handled response to the daemon.
    func setAcknowledger(_ acknowledge: @escaping Acknowledge) {
        state.withLock { $0.acknowledge = acknowledge }
    }

    /// True while at least one iteration is live.
    var hasSubscribers: Bool { state.withLock { !$0.subscribers.isEmpty } }

    /// Responses waiting for an iteration that wants them.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Responses yielded and not yet handled.
    var heldCount: Int { state.withLock { $0.held.count } }

    /// Hands a response to every interested iteration, or keeps it until one exists. `inboxID` is nil for a response
    /// that came in an ask's reply rather than from the daemon's inbox.
    func receive(_ asked: AskedQuestion, _ resolution: Resolution, inboxID: UInt64?) {
        let (ack, acknowledge) = state.withLock { state -> (UInt64?, Acknowledge?) in
            let id = asked.question.id
            if state.handled.contains(id) { return (inboxID, state.acknowledge) }
            if state.held[id] != nil {
                if state.held[id]?.response.inboxID == nil { state.held[id]?.response.inboxID = inboxID }
                return (nil, nil)
            }
            // Yielding under the lock keeps every iteration's order the arrival order; yield never re-enters the hub.
            var holders: Set<UInt64> = []
            for (key, subscriber) in state.subscribers where subscriber.offer(asked, resolution) { holders.insert(key) }
            let response = Pending(asked: asked, resolution: resolution, inboxID: inboxID)
            if !holders.isEmpty {
                state.held[id] = Held(response: response, holders: holders)
            } else if let index = state.pending.firstIndex(where: { $0.asked.question.id == id }) {
                if state.pending[index].inboxID == nil { state.pending[index].inboxID = inboxID }
            } else {
                state.pending.append(response)
            }
            return (nil, nil)
        }
        if let ack, let acknowledge { acknowledge(ack) }
    }

    /// Registers an iteration and hands it the kept responses it wants; returns its id for `unsubscribe`.
    func subscribe(offer: @escaping Offer, finish: @escaping @Sendable () -> Void) -> UInt64 {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(offer: offer, finish: finish)
            var kept: [Pending] = []
            for item in state.pending {
                if offer(item.asked, item.resolution) {
                    state.held[item.asked.question.id] = Held(response: item, holders: [id])
                } else {
                    kept.append(item)
                }
            }
            state.pending = kept
            return id
        }
    }

    /// Iteration `subscriber` asked for its next element: it has handled question `id`.
    func handled(_ id: UUID, by subscriber: UInt64) {
        let ack = state.withLock { state -> (UInt64, Acknowledge)? in
            guard var held = state.held[id], held.holders.remove(subscriber) != nil else { return nil }
            held.handledOnce = true
            state.held[id] = held
            return Self.settle(id, in: &state)
        }
        if let (inboxID, acknowledge) = ack { acknowledge(inboxID) }
    }

    /// The app says it has handled question `id`, whichever iterations still hold it. Returns false when the hub
    /// does not know the question (never received, or already acknowledged).
    @discardableResult
    func acknowledge(_ id: UUID) -> Bool {
        let (known, ack) = state.withLock { state -> (Bool, (UInt64, Acknowledge)?) in
            var response: Pending
            if let held = state.held.removeValue(forKey: id) {
                response = held.response
            } else if let index = state.pending.firstIndex(where: { $0.asked.question.id == id }) {
                response = state.pending.remove(at: index)
            } else {
                return (false, nil)
            }
            state.handled.insert(id)
            guard let inboxID = response.inboxID, let acknowledge = state.acknowledge else { return (true, nil) }
            return (true, (inboxID, acknowledge))
        }
        if let (inboxID, acknowledge) = ack { acknowledge(inboxID) }
        return known
    }

    /// Forgets an iteration that ended; what it held and had not handled is kept again for the next one.
    func unsubscribe(_ id: UInt64) {
        // Returned out of the lock so that releasing the subscriber's stream, which may run its termination handler
        // (and so call back here), happens with the lock free.
        let (removed, acks) = state.withLock { state -> (Subscriber?, [(UInt64, Acknowledge)]) in
            let removed = state.subscribers.removeValue(forKey: id)
            var acks: [(UInt64, Acknowledge)] = []
            for question in Array(state.held.keys) {
                guard state.held[question]?.holders.remove(id) != nil else { continue }
                if let ack = Self.settle(question, in: &state) { acks.append(ack) }
            }
            return (removed, acks)
        }
        _ = removed
        for (inboxID, acknowledge) in acks { acknowledge(inboxID) }
    }

    /// Ends every live iteration.
    func finishAll() {
        let subscribers = state.withLock { $0.subscribers }
        for (id, subscriber) in subscribers {
            subscriber.finish()
            unsubscribe(id)
        }
    }

    /// Once nobody holds question `id` any more: acknowledged if someone handled it, else kept for the next iteration.
    /// Returns the acknowledgement to send.
    private static func settle(_ id: UUID, in state: inout State) -> (UInt64, Acknowledge)? {
        guard let held = state.held[id], held.holders.isEmpty else { return nil }
        state.held[id] = nil
        guard held.handledOnce else {
            state.pending.append(held.response)
            return nil
        }
        state.handled.insert(id)
        guard let inboxID = held.response.inboxID, let acknowledge = state.acknowledge else { return nil }
        return (inboxID, acknowledge)
    }
}
