#if PostgreSQL
import Foundation
import HearthCore
import PostgresNIO

/// Question reminders (`BrokerStore+Reminders` on SQLite): one row per question until its reminder is sent or moot.
extension PostgresTransaction {
    func dueReminders(at now: Date, limit: Int) throws -> [UUID] {
        try rows(
            """
            SELECT question_id FROM question_reminder WHERE remind_at <= \(Self.milliseconds(now))
            ORDER BY remind_at LIMIT \(limit)
            """
        ).map { try $0.decode(UUID.self) }
    }

    func scheduleReminder(_ question: UUID, at date: Date) throws {
        post(HotStatements.ScheduleReminder("\(question) \(Self.milliseconds(date))"))
    }

    func removeReminder(_ question: UUID) throws {
        post(HotStatements.RemoveReminder("\(question)"))
    }
}

extension PostgresStore {
    /// Version 2: `question_reminder`, as SQLite's migration `parents-reminders-v1`.
    static let schemaV2Reminders = """
        CREATE TABLE question_reminder (
            question_id uuid PRIMARY KEY,
            remind_at bigint NOT NULL
        );
        CREATE INDEX question_reminder_due ON question_reminder (remind_at);
        """
}
#endif
