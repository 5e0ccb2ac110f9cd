import BrokerCore
import Foundation
import GRDB
import HearthCore
import HearthProtocol

/// The family's history (`history`): one row per entry, numbered in the order recorded (AUTOINCREMENT never reuses a
/// number, so a guardian's cursor stays valid), the entry in its wire encoding less its id.
///
/// Since `v6-history-recent` a new row is `settled = 0`: only in `history_recent` (by id: a commit fills a page at its
/// end). Once `recentHistoryLimit` rows are there, the next write transaction settles them all into `history_by_child`
/// (by child and id), so that a child's page of that index is dirtied once per move instead of once per commit that
/// recorded an answer for the child (one page per child a commit touched;
/// docs/decisions/0014-recent-parts-and-commit-order-keys.md). A child's
/// history is read from both parts, which never overlap: every recent row is newer than every settled one.
extension BrokerStore {
    /// Rows recorded before they settle into `history_by_child`.
    static let recentHistoryLimit = 4096

    static func registerHistoryRecentMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v6-history-recent") { db in
            try db.execute(
                sql: """
                    ALTER TABLE history ADD COLUMN settled INTEGER NOT NULL DEFAULT 1;
                    DROP INDEX history_by_child;
                    CREATE INDEX history_by_child ON history(child_id, id) WHERE settled = 1;
                    CREATE INDEX history_recent ON history(id) WHERE settled = 0;
                    """)
        }
    }

    /// Settles the recent rows into `history_by_child` once there are at least `limit`. Run at the start of a write
    /// transaction, so the move commits with it (or not at all).
    static func settleRecentHistory(atLeast limit: Int = recentHistoryLimit, in db: Database) throws {
        let count = try unsettledHistoryCount(in: db)
        guard count > 0, count >= limit else { return }
        try settleHistory(in: db)
    }

    /// How many rows are recent (`settled = 0`).
    static func unsettledHistoryCount(in db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM history WHERE settled = 0")) ?? 0
    }

    /// Settles every recent row.
    static func settleHistory(in db: Database) throws {
        try db.execute(sql: "UPDATE history SET settled = 1 WHERE settled = 0")
    }

    static func registerFamilyHistoryMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("parents-history-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE history (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        family_id TEXT NOT NULL,
                        child_id TEXT NOT NULL,
                        recorded_at INTEGER NOT NULL,
                        entry BLOB NOT NULL
                    );
                    CREATE INDEX history_by_child ON history(child_id, id);
                    """)
        }
    }
}

extension SQLiteTransaction {
    func appendHistory(_ entry: HistoryEntry, family: FamilyID) throws -> UInt64 {
        if let hot { return try hot.appendHistory(entry, family: family, in: db) }
        try db.cachedStatement(sql: WriterStatements.Query.appendHistory.sql).execute(arguments: [
            family, entry.childMemberID, Stored.milliseconds(entry.recordedAt),
            Stored.encodedHistoryBody(entry),
        ])
        return UInt64(db.lastInsertedRowID)
    }

    /// Up to `limit` entries from each part (settled, recent), merged in the query's order.
    func history(of child: MemberID, family: FamilyID, query: HistoryQuery, limit: Int) throws -> [HistoryEntry] {
        let since = query.since.map(Stored.milliseconds) ?? Int64.min
        let cursor = Int64(clamping: query.cursor)
        let bound = query.newestFirst && cursor == 0 ? Int64.max : cursor
        var rows: [(id: Int64, entry: Data)] = []
        let (after, order) = query.newestFirst ? ("<", "DESC") : (">", "ASC")
        for (settled, index) in [(1, "history_by_child"), (0, "history_recent")] {
            let sql = """
                SELECT id, entry FROM history INDEXED BY \(index)
                WHERE settled = \(settled) AND child_id = ? AND family_id = ? AND id \(after) ? AND recorded_at >= ?
                ORDER BY id \(order) LIMIT ?
                """
            let found = try Row.fetchCursor(
                db.cachedStatement(sql: sql), arguments: [child, family, bound, since, limit])
            while let row = try found.next() { rows.append((row[0], row[1])) }
        }
        rows.sort { query.newestFirst ? $0.id > $1.id : $0.id < $1.id }
        return try rows.prefix(limit).map { try Stored.historyEntry(id: $0.id, body: $0.entry) }
    }

    func historyHas(_ id: UInt64, child: MemberID, family: FamilyID) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT 1 FROM history WHERE id = ? AND child_id = ? AND family_id = ?",
            arguments: [Int64(clamping: id), child, family]) ?? false
    }
}
