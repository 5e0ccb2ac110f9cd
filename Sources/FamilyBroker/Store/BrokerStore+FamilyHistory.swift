import Foundation
import GRDB
import HearthCore
import HearthProtocol

/// The family's history (`history`): one row per entry, numbered in the order recorded (AUTOINCREMENT never reuses a
/// number, so a guardian's cursor stays valid), the entry in its wire encoding less its id.
extension BrokerStore {
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

    /// A stored entry: the row's id, then the stored fields.
    static func historyEntry(id: Int64, body: Data) throws -> HistoryEntry {
        var reader = WireReader(Array(body))
        let entry = try reader.historyEntryBody(id: UInt64(id))
        try reader.finish()
        return entry
    }

    static func encodedHistoryBody(_ entry: HistoryEntry) -> Data {
        var w = WireWriter()
        w.historyEntryBody(entry)
        return Data(w.bytes)
    }
}

extension SQLiteTransaction {
    func appendHistory(_ entry: HistoryEntry, family: FamilyID) throws -> UInt64 {
        if let hot { return try hot.appendHistory(entry, family: family, in: db) }
        try db.cachedStatement(sql: WriterStatements.Query.appendHistory.sql).execute(arguments: [
            family, entry.childMemberID, BrokerStore.milliseconds(entry.recordedAt),
            BrokerStore.encodedHistoryBody(entry),
        ])
        return UInt64(db.lastInsertedRowID)
    }

    func history(of child: MemberID, family: FamilyID, query: HistoryQuery, limit: Int) throws -> [HistoryEntry] {
        let since = query.since.map(BrokerStore.milliseconds) ?? Int64.min
        let cursor = Int64(clamping: query.cursor)
        let sql =
            query.newestFirst
            ? """
            SELECT id, entry FROM history WHERE child_id = ? AND family_id = ? AND id < ? AND recorded_at >= ?
            ORDER BY id DESC LIMIT ?
            """
            : """
            SELECT id, entry FROM history WHERE child_id = ? AND family_id = ? AND id > ? AND recorded_at >= ?
            ORDER BY id LIMIT ?
            """
        let bound = query.newestFirst && cursor == 0 ? Int64.max : cursor
        return try Row.fetchAll(db, sql: sql, arguments: [child, family, bound, since, limit]).map { row in
            try BrokerStore.historyEntry(id: row[0], body: row[1])
        }
    }

    func historyHas(_ id: UInt64, child: MemberID, family: FamilyID) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT 1 FROM history WHERE id = ? AND child_id = ? AND family_id = ?",
            arguments: [Int64(clamping: id), child, family]) ?? false
    }
}
