import BrokerCore
#if PostgreSQL
import Foundation
import HearthCore
import PostgresNIO

/// The family's history (`BrokerStore+FamilyHistory` on SQLite). Ids come from a sequence: brokers of a cluster
/// write different families, and one family's entries are written by one broker at a time (its partition's
/// lease), so within a child's history ids increase in commit order and a cursor skips nothing.
extension PostgresTransaction {
    func appendHistory(_ entry: HistoryEntry, family: FamilyID) throws -> UInt64 {
        // The entries held take their ids first: ids follow the order entries were appended in.
        try flush()
        let id = try writtenRows(try Self.appendHistory(entry, family: family)).first?.decode(Int64.self)
        guard let id else { throw PostgresStore.RolledBack(command: "INSERT INTO history returned no id") }
        return UInt64(id)
    }

    /// Held, as events are, and sent with the other entries held in one insert (`flush`): at the command's end when
    /// it is guarded, before the commit when unguarded, before a query of `history`.
    func appendHistoryWithoutID(_ entry: HistoryEntry, family: FamilyID) throws {
        held.appendHistory(
            family: family, child: entry.childMemberID, recordedAt: Self.milliseconds(entry.recordedAt),
            entry: Stored.encodedHistoryBody(entry))
    }

    private static func appendHistory(_ entry: HistoryEntry, family: FamilyID) throws -> HotStatements.AppendHistory {
        let body = Stored.encodedHistoryBody(entry)
        return try .init("\(family) \(entry.childMemberID) \(milliseconds(entry.recordedAt)) \(body)")
    }

    func history(of child: MemberID, family: FamilyID, query: HistoryQuery, limit: Int) throws -> [HistoryEntry] {
        try flush()
        let since = query.since.map(Self.milliseconds) ?? Int64.min
        let cursor = Int64(clamping: query.cursor)
        let found =
            query.newestFirst
            ? try rows(
                """
                SELECT id, entry FROM history WHERE child_id = \(child) AND family_id = \(family)
                AND id < \(cursor == 0 ? Int64.max : cursor) AND recorded_at >= \(since) ORDER BY id DESC LIMIT \(limit)
                """)
            : try rows(
                """
                SELECT id, entry FROM history WHERE child_id = \(child) AND family_id = \(family)
                AND id > \(cursor) AND recorded_at >= \(since) ORDER BY id LIMIT \(limit)
                """)
        return try found.map { row in
            let (id, body) = try row.decode((Int64, Data).self)
            return try Stored.historyEntry(id: id, body: body)
        }
    }

    func historyHas(_ id: UInt64, child: MemberID, family: FamilyID) throws -> Bool {
        try flush()
        return try !rows(
            """
            SELECT 1 FROM history WHERE id = \(Int64(clamping: id)) AND child_id = \(child) AND family_id = \(family)
            """
        ).isEmpty
    }
}

extension PostgresStore {
    /// Version 4: `history`, as SQLite's migration `parents-history-v1`.
    static let schemaV4History = """
        CREATE TABLE history (
            id bigserial PRIMARY KEY,
            family_id text NOT NULL,
            child_id text NOT NULL,
            recorded_at bigint NOT NULL,
            entry bytea NOT NULL
        );
        CREATE INDEX history_by_child ON history (child_id, id);
        """
}
#endif
