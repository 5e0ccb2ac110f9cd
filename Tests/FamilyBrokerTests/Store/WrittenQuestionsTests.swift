import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The writer's memory of the questions it stored (`WrittenQuestions`): what it answers is what the rows read back,
/// through savepoints and transactions that roll back; resolutions and reminders by the row's number land on the row.
@Suite("Written questions")
struct WrittenQuestionsTests {
    /// Not a whole millisecond: the rows keep milliseconds.
    static let now = Date(timeIntervalSince1970: 1_750_000_000.123_456)

    /// A question with every field the encoding carries, a name with components it does not, and sub-millisecond
    /// dates.
    func asked(_ value: String) -> AskedQuestion {
        var name = PersonNameComponents()
        name.namePrefix = "Dr."
        name.givenName = "Ada"
        name.familyName = "Lovelace"
        let person = PersonInformation(handle: handle(value), nameComponents: name, avatarImage: [1, 2, 3])
        var question = question([], expirationDate: Self.now.addingTimeInterval(3600.000_7))
        question.topic = .communication(CommunicationTopic(personInformation: [person], actions: [.message, .call]))
        question.note = "note"
        return AskedQuestion(
            question: question, childMemberID: "emma", appBundleID: "com.example.chat", askingDeviceID: "e1",
            askedAt: Self.now)
    }

    func resolution(of asked: AskedQuestion, by parent: MemberID = "alice") -> Resolution {
        Resolution(
            questionID: asked.question.id, choice: .approve, reason: .parentAnswered, answeredBy: parent,
            resolvedAt: Self.now.addingTimeInterval(0.000_3), message: "ok")
    }

    func read(_ ids: [UUID], _ store: BrokerStore) async throws -> [Stored.Question?] {
        try await store.reading { reader in try ids.map { try reader.question($0) } }
    }

    func written(_ ids: [UUID], _ store: BrokerStore) async throws -> [Stored.Question?] {
        try await store.transaction({ tx in try ids.map { try tx.question($0) } }, committed: { _ in })
    }

    @Test func theWriterAnswersFromMemoryWhatTheRowsReadBack() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let (first, second) = (asked("x"), asked("y"))
        let inside = try await store.transaction(
            { tx in
                try tx.insert(first, resolution: nil)
                try tx.insert(second, resolution: resolution(of: second))
                try tx.scheduleReminder(first.question.id, at: Self.now)
                return try [first, second].map { try tx.question($0.question.id) }
            }, committed: { _ in })
        let ids = [first.question.id, second.question.id]
        #expect(store.writerStatements.withLock { $0.questions.count } == 2)
        let rows = try await read(ids, store)
        #expect(inside == rows)
        #expect(rows[0]?.asked.askedAt == Wire.carried(Self.now) && rows[0]?.asked != first, "milliseconds")
        #expect(try await written(ids, store) == rows)
        let due = try await store.reading { try $0.dueReminders(at: Self.now, limit: 10) }
        #expect(due == [first.question.id], "the reminder is in the question's row")
        // Resolved by the row's number: the row changes, and memory with it.
        try await store.transaction(
            { tx in try tx.resolve(first.question.id, with: resolution(of: first)) }, committed: { _ in })
        let resolved = try await read(ids, store)
        #expect(resolved[0]?.resolution == Stored.Question.asRead(resolution(of: first)))
        #expect(try await written(ids, store) == resolved)
        let moot = try await store.reading { try $0.dueReminders(at: Self.now, limit: 10) }
        #expect(moot.isEmpty, "a resolved question's reminder is moot")
    }

    @Test func aCommandsQuestionsGoWithItsSavepoint() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let (first, second) = (asked("x"), asked("y"))
        try await store.transaction({ tx in try tx.insert(first, resolution: nil) }, committed: { _ in })
        let inside = try await store.transaction(
            { tx in
                #expect(throws: ContractError.self) {
                    try tx.savepoint {
                        try tx.resolve(first.question.id, with: resolution(of: first))
                        try tx.insert(second, resolution: nil)
                        throw ContractError()
                    }
                }
                let after = try [first, second].map { try tx.question($0.question.id) }
                // Answered again by another parent, as if the first answer never was.
                try tx.resolve(first.question.id, with: resolution(of: first, by: "bob"))
                return after + [try tx.question(first.question.id)]
            }, committed: { _ in })
        #expect(inside[0]?.resolution == nil && inside[1] == nil)
        #expect(inside[2]?.resolution?.answeredBy == "bob")
        let rows = try await read([first.question.id, second.question.id], store)
        #expect(rows == [inside[2], nil])
        #expect(try await written([first.question.id, second.question.id], store) == rows)
    }

    @Test func aRolledBackTransactionsQuestionsAreForgotten() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let (first, second) = (asked("x"), asked("y"))
        try await store.transaction({ tx in try tx.insert(first, resolution: nil) }, committed: { _ in })
        await #expect(throws: ContractError.self) {
            try await store.transaction(
                { tx in
                    try tx.resolve(first.question.id, with: resolution(of: first))
                    try tx.insert(second, resolution: nil)
                    throw ContractError()
                }, committed: { _ in })
        }
        let ids = [first.question.id, second.question.id]
        let written = try await written(ids, store)
        #expect(written[0]?.resolution == nil && written[1] == nil)
        #expect(try await read(ids, store) == written)
    }

    @Test func memoryKeepsAtMostItsCapacityAndUndoesAcrossATurn() {
        let memory = WrittenQuestions(capacity: 4)
        let questions = (0..<6).map { Stored.Question(asked: asked("h\($0)"), resolution: nil) }
        for (num, question) in questions.prefix(3).enumerated() { memory.added(question, num: Int64(num)) }
        memory.committed()
        let mark = memory.mark
        for (num, question) in questions.enumerated().dropFirst(3) { memory.added(question, num: Int64(num)) }
        memory.resolved(questions[2].asked.question.id, with: resolution(of: questions[2].asked))
        #expect(memory.count <= 4)
        #expect(memory.entry(questions[0].asked.question.id) == nil, "the oldest generation went")
        #expect(memory.entry(questions[5].asked.question.id)?.num == 5)
        memory.rollback(to: mark)
        let held = questions.map { memory.entry($0.asked.question.id) != nil }
        #expect(held == [false, false, true, false, false, false])
        #expect(memory.entry(questions[2].asked.question.id)?.question == questions[2])
    }
}
