import Foundation
public import GRDB
public import HearthCore
import HearthProtocol

/// child-device's tables and every statement on them: the outbox of questions the broker has not accepted yet, the
/// per-app inbox of responses not yet handled, and the handles learned from the broker's events. Questions and
/// responses are stored in their wire encoding.
public struct ChildStore: Sendable {
    /// A response waiting in an app's inbox.
    public struct InboxEntry: Sendable, Equatable {
        public var id: UInt64
        public var asked: AskedQuestion
        public var resolution: Resolution
    }

    let database: any DatabaseWriter

    /// The store in `database`, whose migrator ran `migrate`.
    public init(_ database: any DatabaseWriter) {
        self.database = database
    }

    /// Adds child-device's tables.
    public static func migrate(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("child-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outbox (
                        question_id BLOB PRIMARY KEY, app TEXT NOT NULL, question BLOB NOT NULL, created_at REAL NOT NULL
                    );
                    CREATE TABLE inbox (
                        id INTEGER PRIMARY KEY AUTOINCREMENT, app TEXT NOT NULL, question_id BLOB NOT NULL UNIQUE,
                        asked BLOB NOT NULL, resolution BLOB NOT NULL
                    );
                    CREATE INDEX inbox_app ON inbox(app);
                    CREATE TABLE known_handle (
                        kind INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (kind, value)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("child-v2-waiting") { db in
            // The child's questions the broker holds and nobody answered yet, for a person naming one by a prefix of
            // its id; a resolved one keeps its row (without the question) so that a late pending event is ignored.
            try db.execute(
                sql: """
                    CREATE TABLE waiting (
                        question_id BLOB PRIMARY KEY, asked BLOB NOT NULL, asked_at REAL NOT NULL,
                        resolved INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX waiting_open ON waiting(resolved, asked_at);
                    """)
        }
    }

    /// Applies one event inside the transaction that records it as applied.
    static func apply(_ event: Event, in db: Database) throws {
        switch event.body {
        case .questionPending(let asked):
            try db.execute(sql: "DELETE FROM outbox WHERE question_id = ?", arguments: [asked.question.id.wireBytes])
            try markWaiting(asked, in: db)
        case .questionResolved(let asked, let resolution):
            try db.execute(sql: "DELETE FROM outbox WHERE question_id = ?", arguments: [asked.question.id.wireBytes])
            try settle(asked.question.id, in: db)
            var a = WireWriter()
            a.askedQuestion(asked)
            var r = WireWriter()
            r.resolution(resolution)
            try db.execute(
                sql: "INSERT OR IGNORE INTO inbox (app, question_id, asked, resolution) VALUES (?, ?, ?, ?)",
                arguments: [asked.appBundleID, asked.question.id.wireBytes, Data(a.bytes), Data(r.bytes)])
        case .handlesChanged(let added, let removed):
            for handle in added {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO known_handle (kind, value) VALUES (?, ?)",
                    arguments: [handle.kind.rawValue, handle.value])
            }
            for handle in removed {
                try db.execute(
                    sql: "DELETE FROM known_handle WHERE kind = ? AND value = ?",
                    arguments: [handle.kind.rawValue, handle.value])
            }
        case .ageRange, .omitted, .questionReminder, .historyRecorded:
            // AgeRangeSupport's; nothing to apply (DeviceRuntime logs an omitted event); reminders and the history
            // are for parents.
            break
        }
    }

    // MARK: outbox

    /// Keeps `question` until the broker accepts it; a question already kept stays as it was.
    func enqueue(_ question: Question, app: BundleID, at date: Date = Date()) async throws {
        var w = WireWriter()
        w.question(question)
        let bytes = Data(w.bytes)
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO outbox (question_id, app, question, created_at) VALUES (?, ?, ?, ?)",
                arguments: [question.id.wireBytes, app, bytes, date.timeIntervalSince1970])
        }
    }

    func removeFromOutbox(_ id: UUID) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM outbox WHERE question_id = ?", arguments: [id.wireBytes])
        }
    }

    /// The questions still to send, oldest first (a row that no longer decodes is skipped).
    func outbox() async throws -> [(app: BundleID, question: Question)] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT app, question FROM outbox ORDER BY created_at").compactMap { row in
                var reader = WireReader(Array(row["question"] as Data))
                guard let question = try? reader.question() else { return nil }
                return (row["app"], question)
            }
        }
    }

    // MARK: inbox

    /// The responses waiting for `app`, oldest first.
    func inbox(of app: BundleID) async throws -> [InboxEntry] {
        try await database.read { db in
            let sql = "SELECT id, asked, resolution FROM inbox WHERE app = ? ORDER BY id"
            return try Row.fetchAll(db, sql: sql, arguments: [app])
                .compactMap { row -> InboxEntry? in
                    var a = WireReader(Array(row["asked"] as Data))
                    var r = WireReader(Array(row["resolution"] as Data))
                    guard let asked = try? a.askedQuestion(), let resolution = try? r.resolution() else { return nil }
                    return InboxEntry(id: UInt64(row["id"] as Int64), asked: asked, resolution: resolution)
                }
        }
    }

    /// Removes inbox entry `id` if it is `app`'s: only the app a response belongs to can take it.
    func take(_ id: UInt64, app: BundleID) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM inbox WHERE id = ? AND app = ?", arguments: [Int64(clamping: id), app])
        }
    }

    // MARK: known handles

    /// Those of `handles` this device learned from the broker's events.
    func known(_ handles: [CommunicationHandle]) async throws -> [CommunicationHandle] {
        try await database.read { db in
            try handles.filter { handle in
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM known_handle WHERE kind = ? AND value = ?",
                    arguments: [handle.kind.rawValue, handle.value]) ?? false
            }
        }
    }
}
