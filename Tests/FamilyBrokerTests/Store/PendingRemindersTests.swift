import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Reminders in their questions' rows (`remind_at`, migration `v10-reminder-in-question`) and in the writer's memory
/// (`PendingReminders`): read back after a restart, kept through savepoints and rollbacks as the rows are, read again
/// after another connection's commit; older stores' reminders carried over.
@Suite("Pending reminders")
struct PendingRemindersTests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    func asked(_ value: String) -> AskedQuestion {
        AskedQuestion(
            question: question([value], expirationDate: Self.now.addingTimeInterval(3600)), childMemberID: "emma",
            appBundleID: "com.example.chat", askingDeviceID: "e1", askedAt: Self.now)
    }

    func resolution(of asked: AskedQuestion) -> Resolution {
        Resolution(
            questionID: asked.question.id, choice: .approve, reason: .parentAnswered, answeredBy: "alice",
            resolvedAt: Self.now)
    }

    /// Reminders the rows hold, by question number.
    static func rows(_ store: BrokerStore) async throws -> [Data] {
        try await store.read { db in
            try Data.fetchAll(db, sql: "SELECT id FROM question WHERE remind_at IS NOT NULL ORDER BY num")
        }
    }

    /// What the writer's memory has due at `date`, read on the writer's queue (nil: not read from the rows).
    static func memory(_ store: BrokerStore, at date: Date) async throws -> [UUID]? {
        try await store.transaction(
            { tx in
                // The transaction holds the writer's memory: reached through it, as the engine's statements are.
                let reminders = (tx as! SQLiteTransaction).hot!.reminders
                return reminders.count == nil ? nil : reminders.due(at: Stored.milliseconds(date), limit: 100)
            }, committed: { _ in })
    }

    /// Has the writer read the reminders into memory (nothing is due then).
    /// Stores `asked` pending, with its reminder due at `date`, in a transaction of its own.
    static func storePending(_ asked: AskedQuestion, remindAt date: Date, in store: BrokerStore) async throws {
        try await store.transaction(
            { tx in
                try tx.insert(asked, resolution: nil)
                try tx.scheduleReminder(asked.question.id, at: date)
            }, committed: { _ in })
    }

    static func load(_ store: BrokerStore) async throws {
        _ = try await store.transaction({ tx in try tx.dueReminders(at: .distantPast, limit: 1) }, committed: { _ in })
    }

    @Test func aReminderComesBackAfterARestartAndIsSentOnce() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let clock = TestClock()
        let asked: AskedQuestion
        do {
            let broker = try await BrokerHarness(temp: temp, clock: clock)
            #expect(try await broker.engine.expireQuestions().events.isEmpty)
            asked = try #require(try await broker.ask(question(["sam"])).reply.accepted).asked
            #expect(broker.store.writerStatements.withLock { $0.reminders.count } == 1, "held since the first sweep")
        }
        // The memory died with the broker: the next one reads the row.
        let broker = try await BrokerHarness(temp: temp, clock: clock)
        #expect(broker.store.writerStatements.withLock { $0.reminders.count } == nil)
        clock.advance(by: QuestionTimes.standard.lifetime - QuestionTimes.standard.reminder - 1)
        #expect(try await broker.engine.expireQuestions().events.isEmpty, "not yet")
        #expect(broker.store.writerStatements.withLock { $0.reminders.count } == 1)
        clock.advance(by: 1)
        let reminded = try await broker.engine.expireQuestions().events
        #expect(reminded.recipients == ["alice", "bob"])
        #expect(reminded.allSatisfy { $0.body == .questionReminder(asked) })
        #expect(try await Self.rows(broker.store).isEmpty, "marked sent in its row")
        #expect(try await broker.engine.expireQuestions().events.isEmpty, "once")
        let restarted = try await BrokerHarness(temp: temp, clock: clock)
        #expect(try await restarted.engine.expireQuestions().events.isEmpty, "once, after a restart too")
    }

    @Test func memoryGoesBackWithASavepointAndARolledBackTransactionAsTheRowsDo() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let (first, second, third) = (asked("x"), asked("y"), asked("z"))
        try await Self.load(store)
        try await Self.storePending(first, remindAt: Self.now, in: store)
        #expect(try await Self.memory(store, at: Self.now) == [first.question.id])
        // A command's savepoint rolled back: its reminder and its removal go with it.
        try await store.transaction(
            { tx in
                _ = #expect(throws: ContractError.self) {
                    try tx.savepoint {
                        try tx.insert(second, resolution: nil)
                        try tx.scheduleReminder(second.question.id, at: Self.now.addingTimeInterval(-1))
                        try tx.removeReminder(first.question.id)
                        throw ContractError()
                    }
                }
            }, committed: { _ in })
        #expect(try await Self.memory(store, at: Self.now) == [first.question.id])
        #expect(try await Self.rows(store) == [first.question.id.wireBytes])
        // A transaction rolled back: its changes taken back out, the rest kept.
        await #expect(throws: ContractError.self) {
            try await store.transaction(
                { tx in
                    try tx.insert(third, resolution: nil)
                    try tx.scheduleReminder(third.question.id, at: Self.now.addingTimeInterval(-2))
                    try tx.resolve(first.question.id, with: resolution(of: first))
                    throw ContractError()
                }, committed: { _ in })
        }
        #expect(try await Self.memory(store, at: Self.now) == [first.question.id])
        #expect(try await Self.rows(store) == [first.question.id.wireBytes])
        // Resolved: the reminder is moot, in memory and in the row.
        try await store.transaction(
            { tx in try tx.resolve(first.question.id, with: resolution(of: first)) }, committed: { _ in })
        #expect(try await Self.memory(store, at: .distantFuture) == [])
        #expect(try await Self.rows(store).isEmpty)
    }

    @Test func memoryReadInsideARolledBackTransactionIsForgotten() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let (first, second) = (asked("x"), asked("y"))
        try await Self.storePending(first, remindAt: Self.now, in: store)
        await #expect(throws: ContractError.self) {
            try await store.transaction(
                { tx in
                    try tx.insert(second, resolution: nil)
                    try tx.scheduleReminder(second.question.id, at: Self.now.addingTimeInterval(-1))
                    // Read with the transaction's own reminder in it.
                    _ = try tx.dueReminders(at: .distantPast, limit: 1)
                    throw ContractError()
                }, committed: { _ in })
        }
        #expect(store.writerStatements.withLock { $0.reminders.count } == nil)
        let due = try await store.transaction(
            { tx in try tx.dueReminders(at: Self.now, limit: 10) }, committed: { _ in })
        #expect(due == [first.question.id])
    }

    @Test func anotherConnectionsReminderIsReadAgain() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let (first, second) = (asked("x"), asked("y"))
        try await Self.load(store)
        try await Self.storePending(first, remindAt: Self.now, in: store)
        // A repair by hand, on another connection.
        let other = try DatabaseQueue(path: temp.databasePath)
        try await other.write { db in
            try BrokerStore.insert(second, resolution: nil, in: db)
            try BrokerStore.scheduleReminder(second.question.id, at: Self.now.addingTimeInterval(-1), in: db)
        }
        try other.close()
        let due = try await store.transaction(
            { tx in try tx.dueReminders(at: Self.now, limit: 10) }, committed: { _ in })
        #expect(due == [second.question.id, first.question.id])
        #expect(try await Self.memory(store, at: Self.now) == due)
    }

    @Test func anOlderStoresRemindersMoveIntoTheirPendingQuestions() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let (first, answered, third) = (asked("x"), asked("y"), asked("z"))
        do {
            // The schema and rows as a broker before `v10-reminder-in-question` left them: a table of reminders.
            let queue = try DatabaseQueue(path: temp.databasePath)
            try BrokerStore.migrator.migrate(queue, upTo: "v9-event-tail")
            try await queue.write { db in
                try BrokerStore.insert(first, resolution: nil, in: db)
                try BrokerStore.insert(answered, resolution: resolution(of: answered), in: db)
                try BrokerStore.insert(third, resolution: nil, in: db)
                for (question, minute) in [(first, 2), (answered, 1), (third, 0)] {
                    try db.execute(
                        sql: """
                            INSERT INTO question_reminder (question_num, remind_at)
                            SELECT num, ? FROM question WHERE id = ?
                            """,
                        arguments: [
                            Stored.milliseconds(Self.now) + Int64(minute) * 60_000, question.question.id.wireBytes,
                        ])
                }
            }
            try queue.close()
        }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        #expect(
            try await Self.rows(store) == [first, third].map(\.question.id.wireBytes), "the answered one's is moot")
        let tables = try await store.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'question_reminder%'")
        }
        #expect(tables == 0)
        let later = Self.now.addingTimeInterval(3 * 60)
        let ids = [third, first].map(\.question.id)
        #expect(try await store.reading { try $0.dueReminders(at: later, limit: 10) } == ids, "earliest first")
        #expect(try await store.transaction({ try $0.dueReminders(at: later, limit: 10) }, committed: { _ in }) == ids)
        #expect(try await Self.memory(store, at: later) == ids)
    }
}
