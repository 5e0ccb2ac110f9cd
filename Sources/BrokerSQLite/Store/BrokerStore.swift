import BrokerCore
import Foundation
public import GRDB
public import HearthCore
import HearthProtocol
public import Logging

/// The broker's durable state in one SQLite file (WAL, `synchronous=FULL`): questions, answers, known handles and
/// every member's event log. A command's effects and its events commit in one transaction before anything is sent.
///
/// The engine's first `BrokerStorage`: the SQL lives here and in `SQLiteTransaction`, nowhere in the engine.
public final class BrokerStore: Sendable {
    let pool: DatabasePool
    /// Who checkpoints the log, and how often it happened.
    public let checkpoints: WALCheckpointer
    /// The last commit the disk refused, until a probe writes again (`probeWrite`).
    let writeHealth = SQLiteWriteHealth()
    /// Tests only (a slow disk): how long each commit waits, on the writer, before it commits.
    let commitDelay: (@Sendable () -> Duration)?
    /// The write transaction's prepared statements and the writer's memory of the rows, on the writer's connection.
    /// Not `Sendable`: reached only under this lock, which a write transaction holds from its start to its commit
    /// (GRDB already serializes the writer, so the lock is never contended; it is what lets the compiler check that
    /// nothing else touches them).
    let writerStatements = Locked(WriterStatements())
    /// The writer thread's CPU time inside write transactions.
    let writerCPU = WriterCPU()

    /// The CPU time the writer's thread spent in write transactions since the store opened, commits and commit hooks
    /// included: the engine's own cost, apart from sockets, decoding and the background checkpointer.
    public var writerCPUTime: Duration { writerCPU.total }

    /// Opens (creating if needed) the database at `path` and migrates it. `commitDelay` is a test's fault: each
    /// transaction holds the writer that long before its commit, as a disk that takes seconds to sync would.
    public init(path: String, commitDelay: (@Sendable () -> Duration)? = nil) throws {
        self.commitDelay = commitDelay
        let checkpoints = WALCheckpointer(
            pagesPerPass: Self.backgroundCheckpointPages, finalPagesPerPass: Self.finalBackgroundCheckpointPages,
            writerPages: Self.walCheckpointPages)
        self.checkpoints = checkpoints
        var config = Configuration()
        config.label = "family-broker"
        config.busyMode = .timeout(Self.busyTimeout)
        config.prepareDatabase { db in
            // 16 MiB of page cache instead of SQLite's 2 MiB: under load the writer otherwise re-reads index pages
            // (pread was 8% of the broker's CPU at 2,000 cycles/s).
            try db.execute(sql: "PRAGMA cache_size = -16384")
            // Each command runs in a savepoint, whose sub-journal would otherwise be a temporary file: every page a
            // command first touches was written there (about half of the broker's write volume under load).
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            // In place of `wal_autocheckpoint` (every 1,000 pages by default: a batch dirties about 1,000, so each hot
            // page was copied back once per commit): the writer checkpoints only past `walCheckpointPages`, and
            // wakes the background checkpointer, once started, every `backgroundCheckpointPages`.
            checkpoints.install(on: db)
        }
        pool = try DatabasePool(path: path, configuration: config)
        try Self.migrator.migrate(pool)
        // FULL: a commit survives power loss once the broker has acknowledged it (an fsync of the log at each commit).
        // Set here, not in `prepareDatabase`: GRDB's pool sets its writer to NORMAL when it turns WAL on, after that.
        // After the migrations, which the caller's thread waits for: a migration lost with the power runs again, and
        // the first synced commit syncs the log before it too.
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
    }

    deinit {
        checkpoints.stop()
        // No transaction runs any more (each holds the store), and a prepared statement would keep the writer open.
        writerStatements.withLock { $0.finalizeAll() }
        // The connections go before the checkpointer their commit hook points to.
        try? pool.close()
    }

    /// Moves checkpoints off the writer (see `WALCheckpointer`); until then, the writer checkpoints every
    /// `walCheckpointPages` pages of log as SQLite's automatic checkpoint would.
    public func startBackgroundCheckpoints(logger: Logger) throws {
        try checkpoints.start(path: pool.path, logger: logger)
    }

    /// How long opening or writing waits for another connection's lock instead of failing with `SQLITE_BUSY`:
    /// a previous broker on the same file (an in-process restart) still runs its closing checkpoint for a moment.
    static let busyTimeout: TimeInterval = 10

    /// WAL pages after which the writer checkpoints.
    static let walCheckpointPages = 16_384

    /// WAL pages between background checkpoints, once started: every 256 pages copied a busy store's hot pages eight
    /// times as often, for ~8 µs of CPU and ~20% of the bytes written per cycle
    /// (docs/decisions/0012-background-checkpoints.md).
    static let backgroundCheckpointPages = 2048

    /// WAL pages between background checkpoints in the log's last `backgroundCheckpointPages` before the writer's own.
    static let finalBackgroundCheckpointPages = 256

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE question (
                        id BLOB PRIMARY KEY,
                        child_id TEXT NOT NULL,
                        handles_key TEXT NOT NULL,
                        asked BLOB NOT NULL,
                        expires_at INTEGER,
                        status INTEGER NOT NULL,
                        resolution BLOB
                    );
                    CREATE INDEX question_pending ON question(child_id, handles_key) WHERE status = 0;
                    CREATE TABLE known_handle (
                        child_id TEXT NOT NULL,
                        kind INTEGER NOT NULL,
                        value TEXT NOT NULL,
                        question_id BLOB,
                        PRIMARY KEY (child_id, kind, value)
                    ) WITHOUT ROWID;
                    CREATE TABLE event (
                        member_id TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        body BLOB NOT NULL,
                        PRIMARY KEY (member_id, seq)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2-family-rules") { db in
            try db.execute(
                sql: """
                    ALTER TABLE question ADD COLUMN asked_at INTEGER NOT NULL DEFAULT 0;
                    CREATE INDEX question_by_child_time ON question(child_id, asked_at);
                    CREATE INDEX question_expiring ON question(expires_at) WHERE status = 0 AND expires_at IS NOT NULL;
                    CREATE TABLE family_entry (
                        id TEXT PRIMARY KEY,
                        entry BLOB NOT NULL,
                        source_hash TEXT
                    );
                    CREATE TABLE revoked_key (
                        public_key TEXT PRIMARY KEY,
                        device_id TEXT NOT NULL,
                        member_id TEXT NOT NULL,
                        revoked_at INTEGER NOT NULL
                    );
                    CREATE TABLE child_settings (
                        member_id TEXT PRIMARY KEY,
                        settings BLOB NOT NULL
                    );
                    CREATE TABLE contact (
                        child_id TEXT NOT NULL,
                        kind INTEGER NOT NULL,
                        value TEXT NOT NULL,
                        downtime INTEGER NOT NULL,
                        PRIMARY KEY (child_id, kind, value)
                    ) WITHOUT ROWID;
                    CREATE TABLE passcode (
                        member_id TEXT PRIMARY KEY,
                        hash TEXT NOT NULL,
                        failures INTEGER NOT NULL DEFAULT 0,
                        locked_until INTEGER NOT NULL DEFAULT 0
                    );
                    """)
        }
        registerAgeRangeMigrations(&migrator)
        registerReminderMigrations(&migrator)
        registerEventLogMigration(&migrator)
        registerFamilyHistoryMigration(&migrator)
        migrator.registerMigration("v4-ask-windows") { db in
            // Asks are counted from the writer's memory (`AskWindows`), loaded by time: an index in time order
            // fills a page at its end, where one by child and time dirtied a page per child a commit touched.
            try db.execute(
                sql: """
                    DROP INDEX question_by_child_time;
                    CREATE INDEX question_by_time ON question(asked_at);
                    """)
        }
        registerEventPositionMigration(&migrator)
        registerHistoryRecentMigration(&migrator)
        registerQuestionNumberMigration(&migrator)
        registerKnownHandleRecentMigration(&migrator)
        registerEventTailMigration(&migrator)
        registerReminderColumnMigration(&migrator)
        return migrator
    }

    /// The last sequence number of every member's log.
    public func heads() throws -> [MemberID: UInt64] {
        try pool.read { db in try Self.heads(in: db) }
    }

    /// Runs `body` in one write transaction on GRDB's writer queue (not the cooperative pool).
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.write { [self] db in
            // Not through the engine's transaction: what the writer keeps in memory may no longer be the rows.
            writerStatements.withLock { $0.forgetMemory() }
            return try body(db)
        }
    }

    /// Runs `body` on a read connection.
    public func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.read(body)
    }
}

extension BrokerStore {
    typealias StoredQuestion = Stored.Question

    static func question(_ id: UUID, in db: Database) throws -> StoredQuestion? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: WriterStatements.Query.questionByID.sql),
                arguments: [id.wireBytes])
        else {
            return nil
        }
        return try decodeQuestion(row)
    }

    /// The child's pending, unexpired question from `app` about exactly these handles.
    static func pendingQuestion(
        child: MemberID, app: BundleID, handlesKey: String, now: Date, in db: Database
    ) throws -> StoredQuestion? {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: WriterStatements.Query.pendingQuestion.sql),
            arguments: [child, handlesKey, Int64(now.timeIntervalSince1970 * 1000)])
        return try rows.lazy.map(decodeQuestion).first { $0.asked.appBundleID == app }
    }

    static func insert(_ asked: AskedQuestion, resolution: Resolution?, in db: Database) throws {
        var w = WireWriter()
        w.askedQuestion(asked)
        try db.cachedStatement(sql: WriterStatements.Query.insertQuestion.sql).execute(arguments: [
            asked.question.id.wireBytes, asked.childMemberID, Stored.handlesKey(asked.question.handles), Data(w.bytes),
            asked.question.expirationDate.map { Int64($0.timeIntervalSince1970 * 1000) },
            resolution == nil ? 0 : 1, resolution.map(encodeResolution), Stored.milliseconds(asked.askedAt),
        ])
    }

    static func resolve(_ id: UUID, with resolution: Resolution, in db: Database) throws {
        try db.cachedStatement(sql: WriterStatements.Query.resolveQuestion.sql)
            .execute(arguments: [encodeResolution(resolution), id.wireBytes])
    }

    static func knownHandles(
        of child: MemberID, among handles: [CommunicationHandle], in db: Database
    ) throws -> [CommunicationHandle] {
        let statement = try db.cachedStatement(sql: WriterStatements.Query.knownHandle.sql)
        return try handles.filter { handle in
            try Bool.fetchOne(statement, arguments: [child, handle.kind.rawValue, handle.value]) ?? false
        }
    }

    static func addKnownHandles(
        _ handles: [CommunicationHandle], child: MemberID, question: UUID?, in db: Database
    ) throws -> [CommunicationHandle] {
        var added: [CommunicationHandle] = []
        for handle in handles {
            try db.cachedStatement(sql: WriterStatements.Query.addKnownHandle.sql)
                .execute(arguments: [child, handle.kind.rawValue, handle.value, question.map(\.wireBytes)])
            if db.changesCount > 0 { added.append(handle) }
        }
        return added
    }

    /// A question id as stored (16 bytes); nil for anything else.
    static func uuid(_ bytes: Data?) -> UUID? {
        guard let bytes, bytes.count == 16 else { return nil }
        return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    /// The child's questions still waiting for an answer, oldest first.
    static func pendingQuestions(child: MemberID, in db: Database) throws -> [StoredQuestion] {
        try Row.fetchAll(
            db, sql: "SELECT asked, resolution FROM question WHERE child_id = ? AND status = 0 ORDER BY asked_at",
            arguments: [child]
        )
        .map(decodeQuestion)
    }

    /// Pending questions whose expiration date is at or before `now`.
    static func expiredPendingQuestions(now: Date, limit: Int, in db: Database) throws -> [StoredQuestion] {
        try Row.fetchAll(
            db,
            sql:
                "SELECT asked, resolution FROM question WHERE status = 0 AND expires_at IS NOT NULL AND expires_at <= ? LIMIT ?",
            arguments: [Stored.milliseconds(now), limit]
        ).map(decodeQuestion)
    }

    /// How many questions the child asked at or after `since`.
    /// (The writer counts from memory: `AskWindows`.)
    static func askCount(child: MemberID, since: Date, upTo limit: Int, in db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql: "SELECT COUNT(*) FROM (SELECT 1 FROM question WHERE asked_at >= ? AND child_id = ? LIMIT ?)",
            arguments: [Stored.milliseconds(since), child, limit]) ?? 0
    }

    /// Removes approved handles, from whichever part holds each (`BrokerStore+KnownHandles`); returns those that
    /// were known.
    static func removeKnownHandles(
        _ handles: [CommunicationHandle], child: MemberID, in db: Database
    ) throws -> [CommunicationHandle] {
        var removed: [CommunicationHandle] = []
        for handle in Set(handles) {
            var changes = 0
            for table in ["known_handle", "known_handle_recent"] {
                try db.execute(
                    sql: "DELETE FROM \(table) WHERE child_id = ? AND kind = ? AND value = ?",
                    arguments: [child, handle.kind.rawValue, handle.value])
                changes += db.changesCount
            }
            if changes > 0 { removed.append(handle) }
        }
        return removed
    }

    private static func decodeQuestion(_ row: Row) throws -> StoredQuestion {
        try decodeQuestion(asked: row[0], resolution: row[1])
    }

    /// A question from its stored columns: the asked question's and the resolution's wire encodings.
    static func decodeQuestion(asked askedData: Data, resolution resolutionData: Data?) throws -> StoredQuestion {
        try decodeQuestion(askedBytes: [UInt8](askedData), resolutionBytes: resolutionData.map { [UInt8]($0) })
    }

    /// `decodeQuestion(asked:resolution:)` of the columns' bytes.
    static func decodeQuestion(askedBytes: [UInt8], resolutionBytes: [UInt8]?) throws -> StoredQuestion {
        var r = WireReader(askedBytes)
        let asked = try r.askedQuestion()
        var decoded: Resolution?
        if let resolutionBytes {
            var rr = WireReader(resolutionBytes)
            decoded = try rr.resolution()
        }
        return StoredQuestion(asked: asked, resolution: decoded)
    }

    static func encodeResolution(_ resolution: Resolution) -> Data {
        var w = WireWriter()
        w.resolution(resolution)
        return Data(w.bytes)
    }
}
