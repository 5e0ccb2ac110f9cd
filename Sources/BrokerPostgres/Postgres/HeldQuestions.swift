import BrokerCore
#if PostgreSQL
import Foundation
import HearthCore
import HearthProtocol
import NIOCore
import PostgresNIO

/// Pending questions asked in a write transaction of a partition's owner and not sent yet, as rows of `question` and
/// `question_reminder`: sent together, as one statement (`HotStatements.InsertPendingQuestions`), before the next
/// statement or the commit, where each ask sent its own. The owner cache answers the reads of them meanwhile
/// (`OwnerCache`, `CachedChild`). A taken id fails the statement: the batch runs again guarded, where the ask reads it.
struct HeldQuestions {
    /// A question held.
    struct Question {
        var asked: AskedQuestion
        var handlesKey: String
    }

    var questions: [Question] = []
    private var ids: [String] = []
    private var children: [String] = []
    private var keys: [String] = []
    private var encoded: [ByteBuffer] = []
    /// -1 for none (NULL in the statement).
    private var expiries: [Int64] = []
    private var askedAt: [Int64] = []
    /// -1 for none: no reminder row.
    private var reminders: [Int64] = []

    var isEmpty: Bool { questions.isEmpty }
    var count: Int { questions.count }

    mutating func append(_ asked: AskedQuestion, remindAt: Date?) {
        var w = WireWriter()
        w.askedQuestion(asked)
        let key = Stored.handlesKey(asked.question.handles)
        questions.append(Question(asked: asked, handlesKey: key))
        ids.append(asked.question.id.uuidString)
        children.append(asked.childMemberID)
        keys.append(key)
        encoded.append(ByteBuffer(bytes: w.bytes))
        expiries.append(asked.question.expirationDate.map(Stored.milliseconds) ?? -1)
        askedAt.append(Stored.milliseconds(asked.askedAt))
        reminders.append(remindAt.map(Stored.milliseconds) ?? -1)
    }

    /// Forgets the questions after the first `count` (those of a command that failed).
    mutating func truncate(to count: Int) {
        guard count < questions.count else { return }
        questions.removeSubrange(count...)
        ids.removeSubrange(count...)
        children.removeSubrange(count...)
        keys.removeSubrange(count...)
        encoded.removeSubrange(count...)
        expiries.removeSubrange(count...)
        askedAt.removeSubrange(count...)
        reminders.removeSubrange(count...)
    }

    /// The parameters of `HotStatements.insertingQuestions` (seven, in its order), appended to `bindings`.
    func bind(into bindings: inout PostgresBindings) {
        bindings.append(ids)
        bindings.append(children)
        bindings.append(keys)
        bindings.append(encoded)
        bindings.append(expiries)
        bindings.append(askedAt)
        bindings.append(reminders)
    }
}
#endif
