#if PostgreSQL
import PostgresNIO

/// Pending questions held until the next statement (`HeldQuestions`).
extension PostgresTransaction {
    /// Before any statement but the ask's reads that carry them: sends the questions held, alone.
    func sendHeldQuestions() {
        guard !held.questions.isEmpty else { return }
        var bindings = PostgresBindings(capacity: 7)
        takeHeldQuestions().bind(into: &bindings)
        sent(connection.send(HotStatements.InsertPendingQuestions(bindings: bindings), logger: logger))
    }

    /// The questions held, now being sent: a write of the current command when some are its own (its savepoint opens
    /// first), else of commands that ended unguarded, whose failure is theirs (`unchecked`, as their events).
    func takeHeldQuestions() -> HeldQuestions {
        let questions = held.questions
        held.questions = HeldQuestions()
        if held.savepointOpen != nil, questions.count > held.questionsBeforeCommand {
            openSavepoint()
        } else {
            held.forgetAhead()
            held.unchecked = true
        }
        return questions
    }

    /// The questions sent with `read`'s answer, which it does not see: none unless it was sent ahead with them.
    func unseenQuestions(answering read: some HotStatement) -> [HeldQuestions.Question] {
        held.ahead[Self.key(of: read)] != nil ? held.unseenQuestions : []
    }
}
#endif
