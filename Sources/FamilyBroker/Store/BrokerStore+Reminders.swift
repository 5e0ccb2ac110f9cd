import Foundation
import GRDB
import HearthCore

/// When each pending question's parents are to be reminded that it expires soon (docs/FAMILY-RULES.md): one row per
/// question until its reminder is sent or found moot, keyed by the question's number since `v7-question-numbers`
/// (`BrokerStore+QuestionNumbers`), so a question is stored before its reminder.
extension BrokerStore {
    static func registerReminderMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("parents-reminders-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE question_reminder (
                        question_id BLOB PRIMARY KEY,
                        remind_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE INDEX question_reminder_due ON question_reminder(remind_at);
                    """)
        }
    }

    static func scheduleReminder(_ question: UUID, at date: Date, in db: Database) throws {
        try db.cachedStatement(sql: WriterStatements.Query.scheduleReminder.sql)
            .execute(arguments: [question.wireBytes, milliseconds(date)])
        guard db.changesCount > 0 else { throw reminderWithoutQuestion(question) }
    }

    static func dueReminders(at now: Date, limit: Int, in db: Database) throws -> [UUID] {
        try Data.fetchAll(
            db,
            sql: """
                SELECT q.id FROM question_reminder r JOIN question q ON q.num = r.question_num
                WHERE r.remind_at <= ? ORDER BY r.remind_at LIMIT ?
                """,
            arguments: [milliseconds(now), limit]
        ).compactMap { bytes in
            bytes.count == 16 ? bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) } : nil
        }
    }

    static func removeReminder(_ question: UUID, in db: Database) throws {
        try db.cachedStatement(
            sql: "DELETE FROM question_reminder WHERE question_num = (SELECT num FROM question WHERE id = ?)"
        )
        .execute(arguments: [question.wireBytes])
    }
}

extension SQLiteTransaction {
    func dueReminders(at now: Date, limit: Int) throws -> [UUID] {
        try BrokerStore.dueReminders(at: now, limit: limit, in: db)
    }

    func scheduleReminder(_ question: UUID, at date: Date) throws {
        if let hot { return try hot.scheduleReminder(question, at: date, in: db) }
        try BrokerStore.scheduleReminder(question, at: date, in: db)
    }

    func removeReminder(_ question: UUID) throws { try BrokerStore.removeReminder(question, in: db) }
}
