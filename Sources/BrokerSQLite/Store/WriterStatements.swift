import Foundation
import GRDB
import GRDBSQLite
import HearthCore

/// The writer's hottest statements, prepared once on the writer's connection and bound directly.
///
/// Through GRDB each call looked its statement up by hashing the SQL text and boxed its arguments as existentials,
/// which cost more than SQLite executing these statements (docs/decisions/0017-prepared-statements.md). Reached only under
/// the store's writer lock, which a write transaction holds (decision 0024); the store finalizes them before it closes its connections.
final class WriterStatements {
    /// A statement the writer runs on the hot path; its SQL is the only copy of that statement's text.
    enum Query: Int, CaseIterable {
        case begin, commit
        case savepoint, release, rollbackTo
        case questionByID, pendingQuestion, insertQuestion, insertRemindedQuestion, resolveQuestion,
            resolveQuestionByNum
        case knownHandle, addKnownHandle, contactDowntime, settings, scheduleReminder, scheduleReminderByNum
        case appendHistory
        case appendEvent, movedEventHead
        case dataVersion

        var sql: String {
            switch self {
            case .begin: "BEGIN IMMEDIATE TRANSACTION"
            case .commit: "COMMIT TRANSACTION"
            case .savepoint: "SAVEPOINT command"
            case .release: "RELEASE SAVEPOINT command"
            case .rollbackTo: "ROLLBACK TO SAVEPOINT command"
            case .questionByID: "SELECT asked, resolution FROM question WHERE id = ?"
            case .pendingQuestion:
                """
                SELECT asked, resolution FROM question
                WHERE child_id = ? AND handles_key = ? AND status = 0 AND (expires_at IS NULL OR expires_at > ?)
                """
            case .insertQuestion:
                """
                INSERT INTO question (id, child_id, handles_key, asked, expires_at, status, resolution, asked_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
            case .insertRemindedQuestion:
                """
                INSERT INTO question (
                    id, child_id, handles_key, asked, expires_at, status, resolution, asked_at, remind_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            // A resolved question's reminder is moot: cleared in the same row write.
            case .resolveQuestion: "UPDATE question SET status = 1, resolution = ?, remind_at = NULL WHERE id = ?"
            case .resolveQuestionByNum: "UPDATE question SET status = 1, resolution = ?, remind_at = NULL WHERE num = ?"
            case .knownHandle:
                """
                SELECT 1 FROM known_handle WHERE child_id = ?1 AND kind = ?2 AND value = ?3
                UNION ALL SELECT 1 FROM known_handle_recent WHERE child_id = ?1 AND kind = ?2 AND value = ?3
                """
            case .addKnownHandle:
                """
                INSERT OR IGNORE INTO known_handle_recent (child_id, kind, value, question_id)
                SELECT ?1, ?2, ?3, ?4
                WHERE NOT EXISTS (SELECT 1 FROM known_handle WHERE child_id = ?1 AND kind = ?2 AND value = ?3)
                """
            case .contactDowntime: "SELECT downtime FROM contact WHERE child_id = ? AND kind = ? AND value = ?"
            case .settings: "SELECT settings FROM child_settings WHERE member_id = ?"
            case .appendEvent: "INSERT INTO event_log (member_id, seq, body) VALUES (?, ?, ?)"
            case .movedEventHead: "SELECT MAX(seq) FROM event_index WHERE member_id = ?"
            case .scheduleReminder: "UPDATE question SET remind_at = ?2 WHERE id = ?1"
            case .scheduleReminderByNum: "UPDATE question SET remind_at = ?2 WHERE num = ?1"
            case .appendHistory:
                "INSERT INTO history (family_id, child_id, recorded_at, entry, settled) VALUES (?, ?, ?, ?, 0)"
            case .dataVersion: "PRAGMA data_version"
            }
        }
    }

    /// Each child's recent asks, kept by the writer in its transactions (`AskWindows`).
    let askWindows = AskWindows()

    /// The event log's recent part, by member (`appendEvent`, `events`).
    let recentEvents = RecentEvents()

    /// The questions the writer stored lately, decoded (`question`, `resolve`, `scheduleReminder`).
    let questions = WrittenQuestions()

    /// The pending questions' reminders (`scheduleReminder`, `dueReminders`, `resolve`).
    let reminders = PendingReminders()

    /// How many history rows are not settled yet (`appendHistory`, `settleRecentHistory`).
    let unsettledHistory = UnsettledHistory()

    /// Each member's last sequence number in `event_index`, read once per member (`appendEvent`): for a member with
    /// no event in the recent part, an event at or below it is refused without a lookup in the moved part. Set from
    /// the recent part when it moves; forgotten when the transaction rolls back or `forgetMemory()` runs, so it is
    /// never below the rows.
    var movedEventHeads: [MemberID: UInt64] = [:]

    /// `PRAGMA data_version` at the last transaction's start: it changes when another connection commits.
    private var dataVersion: Int64?

    private var connection: OpaquePointer?
    private var handles = [OpaquePointer?](repeating: nil, count: Query.allCases.count)

    deinit { finalizeAll() }

    /// `query` prepared on `db`'s connection, reset and ready to bind. Run `body` with it; it is reset afterwards, so
    /// that no statement stays active past the call (an active read would hold its snapshot).
    func with<T>(_ query: Query, _ db: Database, _ body: (PreparedQuery) throws -> T) throws -> T {
        guard let connection = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE) }
        if connection != self.connection {
            finalizeAll()
            forgetMemory()
            self.connection = connection
        }
        let statement: OpaquePointer
        if let prepared = handles[query.rawValue] {
            statement = prepared
        } else {
            statement = try Self.prepare(query.sql, on: connection)
            handles[query.rawValue] = statement
        }
        let prepared = PreparedQuery(statement: statement, connection: connection, sql: query.sql)
        defer { sqlite3_reset(statement) }
        return try body(prepared)
    }

    /// At a transaction's start: forgets what the writer keeps in memory when another connection (another broker
    /// on the same file, a repair by hand) committed since the writer's last transaction.
    func noteOtherWriters(_ db: Database) throws {
        let version = try with(.dataVersion, db) { query in try query.step() ? query.int64(0) : nil }
        if version != dataVersion { forgetMemory() }
        dataVersion = version
    }

    /// Forgets what the writer keeps in memory about the rows: after a write outside the engine's transactions, a
    /// commit by another connection, or on a new connection.
    func forgetMemory() {
        askWindows.invalidate()
        recentEvents.invalidate()
        questions.invalidate()
        reminders.invalidate()
        unsettledHistory.invalidate()
        movedEventHeads.removeAll()
    }

    /// The open transaction rolled back, or its commit failed: what the writer learnt in it goes.
    func rolledBack() {
        askWindows.rolledBack()
        // A move may have been rolled back with it: both are read again.
        recentEvents.invalidate()
        questions.invalidate()
        // Kept: read again, they would cost a pass over the pending questions.
        reminders.rollback(to: 0)
        unsettledHistory.invalidate()
        movedEventHeads.removeAll()
    }

    /// The open transaction committed: what the writer learnt in it stays.
    func committed() {
        askWindows.committed()
        recentEvents.committed()
        questions.committed()
        reminders.committed()
        unsettledHistory.committed()
    }

    /// Where a command's savepoint starts, for `rollback(to:)`.
    var mark: Mark {
        Mark(
            asks: askWindows.mark, events: recentEvents.mark, questions: questions.mark, reminders: reminders.mark,
            history: unsettledHistory.mark)
    }

    /// A command's savepoint rolled back (or a command failed before its first change): what it added goes.
    func rollback(to mark: Mark) {
        askWindows.rollback(to: mark.asks)
        recentEvents.rollback(to: mark.events)
        questions.rollback(to: mark.questions)
        reminders.rollback(to: mark.reminders)
        unsettledHistory.rollback(to: mark.history)
    }

    /// Where a savepoint starts in each of the writer's memories.
    struct Mark {
        let asks: Int
        let events: Int
        let questions: Int
        let reminders: Int
        let history: Int
    }

    /// Runs a statement that returns no rows.
    func execute(_ query: Query, _ db: Database, _ bind: (PreparedQuery) -> Void = { _ in }) throws {
        try with(query, db) { statement in
            bind(statement)
            while try statement.step() {}
        }
    }

    /// The row id of the last insert on the writer's connection: SQLite's, without GRDB's check of the calling queue
    /// (a `dispatch_get_specific` per call); only the writer's transactions call it.
    var lastInsertedRowID: Int64 { connection.map(sqlite3_last_insert_rowid) ?? 0 }

    /// Finalizes every statement: before the connection closes (a prepared statement keeps it open).
    func finalizeAll() {
        for index in handles.indices {
            if let statement = handles[index] { sqlite3_finalize(statement) }
            handles[index] = nil
        }
        connection = nil
    }

    private static func prepare(_ sql: String, on connection: OpaquePointer) throws -> OpaquePointer {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        return statement
    }
}
