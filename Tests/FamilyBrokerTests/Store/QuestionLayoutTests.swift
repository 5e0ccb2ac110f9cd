import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The SQLite store's questions numbered in commit order (`BrokerStore+QuestionNumbers`, migration
/// `v7-question-numbers`), reminders in their rows since `v10-reminder-in-question`; older stores migrated.
@Suite("Question layout")
struct QuestionLayoutTests {
    /// Ids that descend: a layout keyed by id would put each new one first.
    static func descendingIDs(_ count: Int) -> [UUID] {
        (0..<count).map { index in
            let head = UInt8(250 - 10 * index)
            return UUID(uuid: (head, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
        }
    }

    /// Every question's id in number order, and the ids of those with a reminder to send in number order.
    static func numbered(_ store: BrokerStore) async throws -> (questions: [Data], reminders: [Data]) {
        try await store.read { db in
            (
                try Data.fetchAll(db, sql: "SELECT id FROM question ORDER BY num"),
                try Data.fetchAll(db, sql: "SELECT id FROM question WHERE remind_at IS NOT NULL ORDER BY num")
            )
        }
    }

    @Test func questionsAreNumberedInCommitOrderAndRemindersReferToThem() async throws {
        try await BrokerHarness.with { broker in
            let ids = Self.descendingIDs(5)
            for (index, id) in ids.enumerated() {
                broker.clock.advance(by: 1)
                _ = try #require(try await broker.ask(question(["pal\(index)"], id: id)).reply.accepted)
            }
            let numbered = try await Self.numbered(broker.store)
            #expect(numbered.questions == ids.map(\.wireBytes))
            #expect(numbered.reminders == ids.map(\.wireBytes))
            let due = try await broker.store.reading { try $0.dueReminders(at: .distantFuture, limit: 10) }
            #expect(due == ids, "earliest first")
            for id in ids { #expect(try await broker.storedQuestion(id) != nil) }

            // The sweep finds each reminder through its question, reminds the parents once and removes it.
            broker.clock.advance(by: QuestionTimes.standard.lifetime - 60)
            let reminded = try await broker.engine.expireQuestions().events
            #expect(reminded.count == 2 * ids.count)
            let remindedOf = reminded.compactMap { event -> UUID? in
                if case .questionReminder(let asked) = event.body { return asked.question.id }
                return nil
            }
            #expect(Set(remindedOf) == Set(ids))
            #expect(try await Self.numbered(broker.store).reminders.isEmpty)
            #expect(try await broker.engine.expireQuestions().events.isEmpty, "once")
        }
    }

    @Test func aReminderWithoutItsQuestionIsRefusedAndNothingStored() async throws {
        try await BrokerHarness.with { broker in
            let store = broker.store
            let stray = UUID()
            await #expect(throws: DatabaseError.self, "by the writer's statement") {
                try await store.transaction(
                    { try $0.scheduleReminder(stray, at: Date()) }, committed: { _ in })
            }
            await #expect(throws: DatabaseError.self, "by the store's own") {
                try await store.write { db in try BrokerStore.scheduleReminder(stray, at: Date(), in: db) }
            }
            let count = try await store.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM question WHERE remind_at IS NOT NULL")
            }
            #expect(count == 0)
        }
    }

    @Test func anOlderStoresQuestionsAndRemindersAreMigrated() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let ids = Self.descendingIDs(4)
        let stray = UUID()
        let askedAt = Date(timeIntervalSince1970: 1_750_000_000)
        let asked = ids.enumerated().map { index, id in
            AskedQuestion(
                question: question(["old\(index)"], id: id), childMemberID: "emma", appBundleID: "com.example.chat",
                askingDeviceID: "emma-phone", askedAt: askedAt.addingTimeInterval(Double(index)))
        }
        let answered = Resolution(
            questionID: ids[1], choice: .approve, reason: .parentAnswered, answeredBy: "alice", resolvedAt: askedAt)
        do {
            // The schema and rows as a broker before `v7-question-numbers` left them: reminders keyed by id.
            let queue = try DatabaseQueue(path: temp.databasePath)
            try BrokerStore.migrator.migrate(queue, upTo: "v6-history-recent")
            try await queue.write { db in
                for (index, question) in asked.enumerated() {
                    try BrokerStore.insert(question, resolution: index == 1 ? answered : nil, in: db)
                }
                // Reminders in another order than the questions', and one whose question is not stored.
                for (id, minute) in [(ids[2], 1), (stray, 2), (ids[0], 3), (ids[3], 4)] {
                    try db.execute(
                        sql: "INSERT INTO question_reminder (question_id, remind_at) VALUES (?, ?)",
                        arguments: [id.wireBytes, Stored.milliseconds(askedAt) + Int64(minute) * 60_000])
                }
            }
            try queue.close()
        }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let numbered = try await Self.numbered(store)
        #expect(numbered.questions == ids.map(\.wireBytes), "numbered in the order stored")
        #expect(numbered.reminders == [ids[0], ids[2], ids[3]].map(\.wireBytes), "the stray reminder is dropped")
        let due = try await store.reading { try $0.dueReminders(at: .distantFuture, limit: 10) }
        #expect(due == [ids[2], ids[0], ids[3]], "earliest first")
        for (index, question) in asked.enumerated() {
            let stored = try #require(try await store.reading { try $0.question(question.question.id) })
            #expect(stored.asked == question)
            #expect(stored.resolution == (index == 1 ? answered : nil))
        }
        let pending = try await store.reading { try $0.pendingQuestions(child: "emma") }
        #expect(pending.map(\.asked.question.id) == [ids[0], ids[2], ids[3]])
        await #expect(throws: DatabaseError.self, "an id is still stored once") {
            try await store.transaction({ try $0.insert(asked[0], resolution: nil) }, committed: { _ in })
        }
        // A new question comes after the migrated ones, and so does its reminder.
        let newer = AskedQuestion(
            question: question(["new"]), childMemberID: "emma", appBundleID: "com.example.chat",
            askingDeviceID: "emma-phone", askedAt: askedAt)
        try await store.transaction(
            { writer in
                try writer.removeReminder(ids[2])
                try writer.insert(newer, resolution: nil)
                try writer.scheduleReminder(newer.question.id, at: askedAt)
            }, committed: { _ in })
        #expect(try await Self.numbered(store).reminders == [ids[0], ids[3], newer.question.id].map(\.wireBytes))
        #expect(try await Self.numbered(store).questions.last == newer.question.id.wireBytes)
    }
}
