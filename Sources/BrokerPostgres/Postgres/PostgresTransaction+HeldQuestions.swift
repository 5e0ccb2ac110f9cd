#if PostgreSQL
import Foundation
import HearthCore
import PostgresNIO

/// Pending questions and resolutions held until the next statement (`HeldQuestions`, `HeldResolutions`).
extension PostgresTransaction {
    /// Before any other statement: sends the questions held, then the resolutions held, one statement each.
    func sendHeldQuestions() {
        guard held.holdsRows else { return }
        let questions = takeHeldQuestions()
        if !questions.isEmpty {
            var bindings = PostgresBindings(capacity: 7)
            questions.bind(into: &bindings)
            sent(connection.send(HotStatements.InsertPendingQuestions(bindings: bindings), logger: logger))
        }
        let resolutions = held.resolutions
        held.resolutions = HeldResolutions()
        if !resolutions.isEmpty {
            sent(connection.send(HotStatements.ResolveHeld(bindings: resolutions.bindings), logger: logger))
        }
    }

    /// The questions held, now being sent (with the resolutions held, if any): a write of the current command when
    /// some rows are its own (its savepoint opens first), else of commands that ended unguarded, whose failure is
    /// theirs (`unchecked`, as their events).
    func takeHeldQuestions() -> HeldQuestions {
        let questions = held.questions
        held.questions = HeldQuestions()
        if held.savepointOpen != nil,
            questions.count > held.questionsBeforeCommand
                || held.resolutions.count > held.resolutionsBeforeCommand
        {
            openSavepoint()
        } else {
            held.forgetAhead()
            held.unchecked = true
        }
        return questions
    }

    /// Resolves a question, held to go with the transaction's other resolutions (an owner's transaction), or sent
    /// now; `approving`: the handles it approves that the child did not have (known from the owner cache).
    func holdResolution(_ id: UUID, _ encoded: Data, child: MemberID, approving handles: [CommunicationHandle]) {
        // One statement's parts do not see each other's rows: a question still held is inserted first.
        if held.questions.questions.contains(where: { $0.asked.question.id == id }) { sendHeldQuestions() }
        held.resolutions.append(id, resolution: encoded, child: child, approving: handles)
    }
}
#endif
