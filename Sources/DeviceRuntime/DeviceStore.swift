import Foundation
public import GRDB
import HearthCore
import Synchronization

/// A device daemon's SQLite file: the last applied sequence number and what it remembers of its last welcome, plus the
/// tables of the behaviour's own stores (`migrate` adds them), which share the file and its transactions.
public final class DeviceStore: Sendable {
    public let pool: DatabasePool
    /// The last applied number as this process last read or wrote it: only this daemon writes its file.
    private let lastAppliedCache = Mutex<UInt64?>(nil)

    /// Opens (or creates, with its directory) the file at `path`; `label` names its connections in errors. The
    /// directory is made owner-only and the files 0600 (`prepareStateDirectory`): they hold a child's questions.
    public init(path: String, label: String, migrate: (inout DatabaseMigrator) -> Void) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try Self.prepareStateDirectory(directory.isEmpty ? "." : directory)
        try Self.prepareDatabaseFile(path)
        var config = Configuration()
        config.label = label
        // A restarted daemon may open the file while the previous run's last connection still checkpoints it.
        config.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: config)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("device-v1") { db in
            try db.execute(sql: "CREATE TABLE device_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        }
        migrate(&migrator)
        try migrator.migrate(pool)
        // FULL: an applied event or a stored answer survives power loss. Not in `prepareDatabase`: GRDB's pool sets
        // its writer to NORMAL when it turns WAL on, after that. After the migrations, which the caller's thread
        // waits for: a migration lost with the power runs again, and the first synced commit syncs the log before it.
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
    }

    /// The sequence number of the last event applied.
    public func lastApplied() async throws -> UInt64 {
        if let cached = knownLastApplied { return cached }
        let value = try await pool.read { db in try Self.lastApplied(db) }
        remember(value)
        return value
    }

    /// The last applied number without a read, once it was read or written in this process; nil before.
    var knownLastApplied: UInt64? { lastAppliedCache.withLock { $0 } }

    private func remember(_ value: UInt64) {
        lastAppliedCache.withLock { $0 = max($0 ?? 0, value) }
    }

    static func lastApplied(_ db: Database) throws -> UInt64 {
        UInt64(try String.fetchOne(db, sql: "SELECT value FROM device_state WHERE key = 'last_applied'") ?? "0") ?? 0
    }

    typealias Applied = (applied: [Event], gap: (expected: UInt64, got: UInt64)?)

    /// Applies the events that continue the log, in order, in one transaction with the new last-applied number.
    /// Returns the events applied and whether a gap was seen (an event beyond the next expected one).
    func apply(_ events: [Event], behavior: some DeviceBehavior) async throws -> Applied {
        let result: Applied = try await pool.write { db in
            var last = try Self.lastApplied(db)
            var applied: [Event] = []
            var gap: (expected: UInt64, got: UInt64)?
            for event in events.sorted(by: { $0.sequence < $1.sequence }) {
                if event.sequence <= last { continue }  // seen already: discard
                if event.sequence > last + 1 {
                    gap = (last + 1, event.sequence)
                    break
                }
                try behavior.apply(event, in: db)
                last = event.sequence
                applied.append(event)
            }
            if !applied.isEmpty {
                try db.execute(
                    sql:
                        "INSERT INTO device_state (key, value) VALUES ('last_applied', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    arguments: [String(last)])
            }
            return (applied, gap)
        }
        // After the commit: a reader of the cache never sees a number the file does not hold yet.
        if let last = result.applied.last?.sequence { remember(last) }
        return result
    }

    /// A remembered value, e.g. the member id from the last welcome.
    public func value(_ key: String) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM device_state WHERE key = ?", arguments: [key])
        }
    }

    public func setValue(_ value: String, for key: String) async throws {
        try await pool.write { db in
            try db.execute(
                sql:
                    "INSERT INTO device_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key, value])
        }
    }
}
