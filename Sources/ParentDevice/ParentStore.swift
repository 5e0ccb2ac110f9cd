import Foundation
public import GRDB
import HearthCore
import HearthProtocol

/// parent-device's tables and every statement on them: the questions waiting for a parent and those answered, in
/// their wire encoding.
public struct ParentStore: Sendable {
    let database: any DatabaseWriter

    /// The store in `database`, whose migrator ran `migrate`.
    public init(_ database: any DatabaseWriter) {
        self.database = database
    }

    /// Adds parent-device's tables.
    public static func migrate(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("parent-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE pending (question_id BLOB PRIMARY KEY, asked BLOB NOT NULL, asked_at REAL NOT NULL);
                    CREATE TABLE resolved (question_id BLOB PRIMARY KEY, asked BLOB NOT NULL, resolution BLOB NOT NULL);
                    """)
        }
        migrator.registerMigration("parent-v2-notifications") { db in
            // Each notification once: AUTOINCREMENT never reuses a number, so a watcher's position stays valid.
            try db.execute(
                sql: """
                    CREATE TABLE notification (
                        id INTEGER PRIMARY KEY AUTOINCREMENT, question_id BLOB, kind INTEGER NOT NULL,
                        body BLOB NOT NULL, desktop_shown INTEGER NOT NULL DEFAULT 0, UNIQUE (question_id, kind));
                    """)
        }
    }

    /// Applies one event inside the transaction that records it as applied. A question already answered is not
    /// pending again, whatever order its events came in. Returns the number of the notification it recorded, if any.
    @discardableResult
    static func apply(_ event: Event, in db: Database) throws -> UInt64? {
        switch event.body {
        case .questionPending(let asked):
            var w = WireWriter()
            w.askedQuestion(asked)
            let id = asked.question.id.wireBytes
            let sql = "SELECT 1 FROM resolved WHERE question_id = ?"
            let answered = try Bool.fetchOne(db, sql: sql, arguments: [id]) ?? false
            guard !answered else { return nil }
            try db.execute(
                sql: "INSERT OR IGNORE INTO pending (question_id, asked, asked_at) VALUES (?, ?, ?)",
                arguments: [id, Data(w.bytes), asked.askedAt.timeIntervalSince1970])
            return try record(event, in: db)
        case .questionResolved(let asked, let resolution):
            var a = WireWriter()
            a.askedQuestion(asked)
            var r = WireWriter()
            r.resolution(resolution)
            let id = asked.question.id.wireBytes
            try db.execute(sql: "DELETE FROM pending WHERE question_id = ?", arguments: [id])
            try db.execute(
                sql: "INSERT OR REPLACE INTO resolved (question_id, asked, resolution) VALUES (?, ?, ?)",
                arguments: [id, Data(a.bytes), Data(r.bytes)])
            return try record(event, in: db)
        case .questionReminder(let asked):
            // Told only while it still waits here.
            let sql = "SELECT 1 FROM pending WHERE question_id = ?"
            guard try Bool.fetchOne(db, sql: sql, arguments: [asked.question.id.wireBytes]) ?? false else { return nil }
            return try record(event, in: db)
        case .historyRecorded:
            return try record(event, in: db)
        case .handlesChanged, .ageRange, .omitted:
            return nil
        }
    }

    /// The waiting questions, oldest first, as many as fit in `maxBytes` of encoded questions, and always the oldest
    /// (a question within its budget fits alone).
    func pending(maxBytes: Int) async throws -> [AskedQuestion] {
        try await database.read { db in
            var list: [AskedQuestion] = []
            var bytes = 0
            let rows = try Data.fetchCursor(db, sql: "SELECT asked FROM pending ORDER BY asked_at")
            while let data = try rows.next() {
                bytes += data.count
                if bytes > maxBytes, !list.isEmpty { break }
                var r = WireReader(Array(data))
                list.append(try r.askedQuestion())
            }
            return list
        }
    }
}
