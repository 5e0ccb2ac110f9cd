import BrokerCore
#if PostgreSQL
import Foundation
import HearthCore
import PostgresNIO

/// An ask's reads, sent together (`willCheckAsk`): the engine makes them one after the other, each needing the
/// answer to the one before only to decide whether to go on, so the store sends all of them, as one statement
/// (`AskReads`), before the first is waited for: one statement and one wait answer them all (six statements sent
/// together before, and five waits before that). Each read is built by the one function below, for the hint and for the call that takes its
/// answer: the two match exactly, or the call sends its read again. Every read of an ask returns the columns of
/// `AskReads` (`AskReadRow`), alone or together.
extension PostgresTransaction {
    func willCheckAsk(
        _ id: UUID, child: MemberID, handles: [CommunicationHandle], since: Date, limit: Int, now: Date
    ) {
        if usesCache { return willCheckCachedAsk(id, child: child, since: since) }
        // In `AskReads`' order of parts; a read the ask does not reach (a retry, a refusal) is answered and forgotten.
        var reads = [
            Self.key(of: Self.readQuestion(id)),
            Self.key(of: Self.readAskCount(child: child, since: since, limit: limit)),
            Self.key(of: Self.readSettings(of: child)),
        ]
        if !handles.isEmpty {
            reads += [
                Self.key(of: Self.readContactFlags(of: child, among: handles)),
                Self.key(of: Self.readKnownHandles(of: child, among: handles)),
                Self.key(of: Self.readPendingQuestion(child: child, handles: handles, now: now)),
            ]
        }
        let combined = HotStatements.AskReads(
            """
            \(id) \(child) \(Self.milliseconds(since)) \(Int64(limit)) \(handles.map(\.value)) \
            \(Stored.handlesKey(handles)) \(Self.milliseconds(now))
            """)
        // Questions are held only by a partition's owner, whose asks do not come here.
        sendHeldQuestions()
        readAhead(combined, answering: reads)
    }

    /// An owner's ask: nothing to read when the cache knows the child, else its rows, once. Unguarded, the question
    /// is not read either (`question(_:)` takes the id for new, and the insert checks it); run again guarded, it is,
    /// sent with the child's rows.
    private func willCheckCachedAsk(_ id: UUID, child: MemberID, since: Date) {
        held.asking = id
        if !held.unguarded, cachedQuestion(id) == nil { readAhead(Self.readQuestion(id)) }
        let from = Self.milliseconds(since)
        if mustReadChild(child, since: from) { readAhead(Self.readChild(child, since: from)) }
    }

    static func readQuestion(_ id: UUID) -> HotStatements.QuestionByID { .init("\(id)") }

    static func readAskCount(child: MemberID, since: Date, limit: Int) -> HotStatements.AskCount {
        .init("\(child) \(milliseconds(since)) \(Int64(limit))")
    }

    static func readSettings(of child: MemberID) -> HotStatements.Settings { .init("\(child)") }

    static func readContactFlags(of child: MemberID, among handles: [CommunicationHandle]) -> HotStatements.ContactFlags
    {
        .init("\(child) \(handles.map(\.value))")
    }

    static func readKnownHandles(of child: MemberID, among handles: [CommunicationHandle]) -> HotStatements.KnownHandles
    {
        .init("\(child) \(handles.map(\.value))")
    }

    static func readPendingQuestion(
        child: MemberID, handles: [CommunicationHandle], now: Date
    ) -> HotStatements.PendingQuestion {
        .init("\(child) \(Stored.handlesKey(handles)) \(milliseconds(now))")
    }
}
#endif
