import Foundation
import GRDB

/// Each question's number in commit order (`question.num`, migration `v7-question-numbers`), which its reminder refers
/// to (docs/decisions/0014-recent-parts-and-commit-order-keys.md).
///
/// `question_reminder` was keyed by the question's id: apps' ids are random UUIDs, so each ask dirtied a random page of
/// that key, kept for the reminder's lifetime (71 h by default). A question's row was already appended in rowid
/// order, but SQLite may renumber an unaliased rowid (`VACUUM`), so nothing could refer to it; `num` is that rowid
/// made stable (an `INTEGER PRIMARY KEY`), and a reminder keyed by it is appended too. The id keeps a unique index
/// of its own (`question_by_id`), still written at a random page per ask: lookups by id need it.
extension BrokerStore {
    static func registerQuestionNumberMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7-question-numbers") { db in
            try db.execute(
                sql: """
                    CREATE TABLE question_v7 (
                        num INTEGER PRIMARY KEY,
                        id BLOB NOT NULL,
                        child_id TEXT NOT NULL,
                        handles_key TEXT NOT NULL,
                        asked BLOB NOT NULL,
                        expires_at INTEGER,
                        status INTEGER NOT NULL,
                        resolution BLOB,
                        asked_at INTEGER NOT NULL DEFAULT 0
                    );
                    INSERT INTO question_v7 (num, id, child_id, handles_key, asked, expires_at, status, resolution,
                        asked_at)
                        SELECT rowid, id, child_id, handles_key, asked, expires_at, status, resolution, asked_at
                        FROM question ORDER BY rowid;
                    CREATE TABLE question_reminder_v7 (
                        question_num INTEGER PRIMARY KEY,
                        remind_at INTEGER NOT NULL
                    );
                    -- A reminder whose question is not stored was moot (the sweep drops it): it is not carried over.
                    INSERT INTO question_reminder_v7 (question_num, remind_at)
                        SELECT q.num, r.remind_at FROM question_reminder r JOIN question_v7 q ON q.id = r.question_id
                        ORDER BY q.num;
                    DROP TABLE question_reminder;
                    DROP TABLE question;
                    ALTER TABLE question_v7 RENAME TO question;
                    ALTER TABLE question_reminder_v7 RENAME TO question_reminder;
                    CREATE UNIQUE INDEX question_by_id ON question(id);
                    CREATE INDEX question_pending ON question(child_id, handles_key) WHERE status = 0;
                    CREATE INDEX question_expiring ON question(expires_at) WHERE status = 0 AND expires_at IS NOT NULL;
                    CREATE INDEX question_by_time ON question(asked_at);
                    CREATE INDEX question_reminder_due ON question_reminder(remind_at);
                    """)
        }
    }

    /// The refusal of a reminder for a question that is not stored: the reminder refers to the question's number.
    static func reminderWithoutQuestion(_ question: UUID) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_CONSTRAINT, message: "no question \(question) is stored to keep a reminder for")
    }
}
