import BrokerCore
import Foundation
import GRDB
import HearthCore
import HearthProtocol

/// When each pending question's parents are to be reminded that it expires soon (docs/FAMILY-RULES.md): since
/// `v10-reminder-in-question` the date is a column of the question's row (`remind_at`), cleared when the reminder is
/// sent or found moot and when the question is resolved. It was a table of its own (`question_reminder`, keyed by the
/// question's number since `v7-question-numbers`): a row and an index entry per ask, 4–5% of the writer's work (issue
/// 18). The sweep finds the due ones among the pending questions (`question_pending`, the partial index of pending
/// questions); the writer keeps them in memory (`PendingReminders`).
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

    /// The pending questions' reminders move into their rows, found through the pending questions rather than
    /// through every reminder stored (those of answered questions stay up to the reminder's date): a resolved
    /// question's reminder was moot (the sweep drops it).
    static func registerReminderColumnMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v10-reminder-in-question") { db in
            try db.execute(
                sql: """
                    ALTER TABLE question ADD COLUMN remind_at INTEGER;
                    UPDATE question INDEXED BY question_pending
                        SET remind_at = (SELECT remind_at FROM question_reminder WHERE question_num = question.num)
                        WHERE status = 0;
                    DROP TABLE question_reminder;
                    """)
        }
    }

    /// The pending questions' reminders (`PendingReminders.load`): a pass over the pending questions, not over the
    /// history.
    static func pendingReminders(in db: Database) throws -> [(UUID, PendingReminders.Reminder)] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT id, num, remind_at FROM question INDEXED BY question_pending
                WHERE status = 0 AND remind_at IS NOT NULL
                """
        ).compactMap { row in
            guard let id = uuid(row[0]) else { return nil }
            return (id, PendingReminders.Reminder(at: row[2], num: row[1]))
        }
    }

    static func scheduleReminder(_ question: UUID, at date: Date, in db: Database) throws {
        try db.cachedStatement(sql: WriterStatements.Query.scheduleReminder.sql)
            .execute(arguments: [question.wireBytes, Stored.milliseconds(date)])
        guard db.changesCount > 0 else { throw reminderWithoutQuestion(question) }
    }

    static func dueReminders(at now: Date, limit: Int, in db: Database) throws -> [UUID] {
        try Data.fetchAll(
            db,
            sql: """
                SELECT id FROM question INDEXED BY question_pending
                WHERE status = 0 AND remind_at <= ? ORDER BY remind_at, num LIMIT ?
                """,
            arguments: [Stored.milliseconds(now), limit]
        ).compactMap { uuid($0) }
    }

    static func removeReminder(_ question: UUID, in db: Database) throws {
        try db.cachedStatement(sql: "UPDATE question SET remind_at = NULL WHERE id = ? AND remind_at IS NOT NULL")
            .execute(arguments: [question.wireBytes])
    }
}

extension SQLiteTransaction {
    func dueReminders(at now: Date, limit: Int) throws -> [UUID] {
        if let hot { return try hot.dueReminders(at: now, limit: limit, in: db) }
        return try BrokerStore.dueReminders(at: now, limit: limit, in: db)
    }

    func scheduleReminder(_ question: UUID, at date: Date) throws {
        if let hot { return try hot.scheduleReminder(question, at: date, in: db) }
        try BrokerStore.scheduleReminder(question, at: date, in: db)
    }

    func removeReminder(_ question: UUID) throws {
        try BrokerStore.removeReminder(question, in: db)
        hot?.reminders.removed(question)
    }
}
