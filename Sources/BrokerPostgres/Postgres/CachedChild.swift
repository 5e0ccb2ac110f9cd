#if PostgreSQL
import BrokerCore
import Foundation
import HearthCore

/// What a partition's owner keeps in memory of one child's rows for its asks (`OwnerCache`): everything an ask reads
/// but the question by id and the approved handles (kept apart), loaded whole by one statement
/// (`HotStatements.ChildRows`) the first time the child asks after an adoption, then kept by the owner's own writes.
/// An ask of a child it knows then sends no read at all. docs/decisions/0022-owner-cache.md.
struct CachedChild: Sendable {
    /// The settings as stored (`child_settings`, JSON), nil when none are.
    var settings: Data?
    /// The child's contacts (`contact`): whether each may be reached during downtime.
    var contacts: [CommunicationHandle: Bool]
    /// When (ms) each of the child's questions asked at or after `asksSince` was asked: what the ask limit counts.
    var askedAt: [Int64]
    /// The earliest time (ms) `askedAt` is complete from: an ask counting from before it reads the server again.
    var asksSince: Int64
    /// The child's pending questions (status 0, expired or not), in the order they were stored.
    var pending: [Stored.Question]

    /// How many of the child's questions were asked at or after `since` (ms), at most `limit`.
    func askCount(since: Int64, limit: Int) -> Int {
        min(askedAt.count(where: { $0 >= since }), limit)
    }

    /// The first pending question of `app` about exactly `handlesKey`'s handles that has not expired at `now` (ms):
    /// as `HotStatements.PendingQuestion` and the engine's choice among its rows.
    func pendingQuestion(app: BundleID, handlesKey: String, now: Int64) -> Stored.Question? {
        pending.first { stored in
            stored.asked.appBundleID == app && Stored.handlesKey(stored.asked.question.handles) == handlesKey
                && stored.asked.question.expirationDate.map { Stored.milliseconds($0) > now } ?? true
        }
    }

    /// A question stored for the child: counted by the ask limit, and pending unless it was resolved at once.
    mutating func add(_ asked: AskedQuestion, resolution: Resolution?) {
        askedAt.append(Stored.milliseconds(asked.askedAt))
        if resolution == nil { pending.append(Stored.Question(asked: asked, resolution: nil)) }
    }

    /// Forgets the ask times before `since` (ms), which no ask counts any more.
    mutating func forgetAsks(before since: Int64) {
        askedAt.removeAll { $0 < since }
        asksSince = max(asksSince, since)
    }
}
#endif
