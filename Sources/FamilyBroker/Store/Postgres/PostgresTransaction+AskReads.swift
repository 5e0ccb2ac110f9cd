import Foundation
import HearthCore
import PostgresNIO

/// An ask's reads, sent together (`willCheckAsk`): the engine makes them one after the other, each needing the
/// answer to the one before only to decide whether to go on, so the store sends all of them before the first is
/// waited for, and one wait answers them all (it waited five times for them before). Each read is built by the one
/// function below, for the hint and for the call that takes its answer: the two match exactly, or the call sends
/// its read again.
extension PostgresTransaction {
    func willCheckAsk(
        _ id: UUID, child: MemberID, handles: [CommunicationHandle], since: Date, limit: Int, now: Date
    ) {
        // In the engine's order; a read the ask does not reach (a retry, a refusal) is answered and forgotten.
        readAhead(Self.readQuestion(id))
        readAhead(Self.readAskCount(child: child, since: since, limit: limit))
        readAhead(Self.readSettings(of: child))
        guard !handles.isEmpty else { return }
        readAhead(Self.readContactFlags(of: child, among: handles))
        readAhead(Self.readKnownHandles(of: child, among: handles))
        readAhead(Self.readPendingQuestion(child: child, handles: handles, now: now))
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
        .init("\(child) \(BrokerStore.handlesKey(handles)) \(milliseconds(now))")
    }
}
