import Foundation
import GRDB
import HearthCore
import HearthProtocol

/// Every member's event log, laid out so that a commit writes few pages (migration `v3-event-log`).
///
/// Keyed by (member, sequence) in one B-tree, a batch dirtied a page per member it touched: ~1,000 pages of WAL for
/// ~180 commands with 200 families, written and checkpointed at every commit. Now events are appended in commit order
/// to `event_log` (a rowid table: a batch fills a few pages at its end), and the map from (member, sequence) to
/// position has two parts: `event_recent`, small enough that a commit rewrites only a few of its pages, and
/// `event_index`, the same map for everything older, to which `event_recent` moves once it holds
/// `recentEventLimit` entries, so each member's page there is dirtied once per move instead of once per commit.
/// Both parts have the (member, sequence) key, so a sequence is stored once per member. Since `v5-event-positions`
/// the broker writes an event's position itself, and checks the moved part against the member's last moved sequence
/// number, which the writer keeps in memory (`WriterStatements.movedEventHeads`).
extension BrokerStore {
    /// Entries `event_recent` holds before they move to `event_index`. The sum of the pages written per commit for
    /// both parts is smallest near 4,096 with a few hundred members (measured: docs/PERFORMANCE.md, issue 18).
    static let recentEventLimit = 4096

    static func registerEventLogMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3-event-log") { db in
            try db.execute(
                sql: """
                    CREATE TABLE event_log (
                        pos INTEGER PRIMARY KEY,
                        member_id TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        body BLOB NOT NULL
                    );
                    CREATE TABLE event_index (
                        member_id TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        pos INTEGER NOT NULL,
                        PRIMARY KEY (member_id, seq)
                    ) WITHOUT ROWID;
                    CREATE TABLE event_recent (
                        member_id TEXT NOT NULL,
                        seq INTEGER NOT NULL,
                        pos INTEGER NOT NULL,
                        PRIMARY KEY (member_id, seq)
                    ) WITHOUT ROWID;
                    INSERT INTO event_log (member_id, seq, body)
                        SELECT member_id, seq, body FROM event ORDER BY member_id, seq;
                    INSERT INTO event_index (member_id, seq, pos)
                        SELECT member_id, seq, pos FROM event_log ORDER BY pos;
                    DROP TABLE event;
                    -- One statement per event from the broker: SQLite itself refuses a sequence already moved to
                    -- the index (`event_recent`'s key refuses one since) and records the new position.
                    CREATE TRIGGER event_log_stored_once BEFORE INSERT ON event_log
                    WHEN EXISTS (SELECT 1 FROM event_index WHERE member_id = NEW.member_id AND seq = NEW.seq)
                    BEGIN
                        SELECT RAISE(ABORT, 'this sequence number of this member is already stored');
                    END;
                    CREATE TRIGGER event_log_position AFTER INSERT ON event_log
                    BEGIN
                        INSERT INTO event_recent (member_id, seq, pos) VALUES (NEW.member_id, NEW.seq, NEW.pos);
                    END;
                    """)
        }
    }

    /// Without the v3 triggers (issue 18): a trigger made each event's insert open a statement journal, copying the
    /// pages it changed, and looked the sequence up in `event_index`, a lookup the writer now answers from memory.
    /// The broker records each event's position itself (`appendEvent`), with the same refusals.
    static func registerEventPositionMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5-event-positions") { db in
            try db.execute(
                sql: """
                    DROP TRIGGER event_log_stored_once;
                    DROP TRIGGER event_log_position;
                    """)
        }
    }

    /// Stores `event`; `body` is its wire encoding (`BrokerFrames.event`), so each event is encoded once. A sequence
    /// number at or below the member's last one moved to `event_index` is refused, and one still in `event_recent`
    /// by that table's key: a sequence number is stored once per member. Run inside a transaction (or savepoint),
    /// which a refusal rolls back: the log's row is written before its position.
    static func appendEvent(_ event: Event, body: ArraySlice<UInt8>, in db: Database) throws {
        let moved = try Int64.fetchOne(
            db.cachedStatement(sql: WriterStatements.Query.movedEventHead.sql), arguments: [event.memberID])
        guard event.sequence > UInt64(clamping: moved ?? 0) else { throw sequenceAlreadyStored(event) }
        try db.cachedStatement(sql: WriterStatements.Query.appendEvent.sql)
            .execute(arguments: [event.memberID, Int64(event.sequence), Data(body)])
        try db.cachedStatement(sql: WriterStatements.Query.recordEventPosition.sql)
            .execute(arguments: [event.memberID, Int64(event.sequence), db.lastInsertedRowID])
    }

    /// The refusal of a sequence number already moved to `event_index` (the v3 trigger's error).
    static func sequenceAlreadyStored(_ event: Event) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_CONSTRAINT,
            message: "sequence \(event.sequence) of \(event.memberID) is already stored")
    }

    /// Moves `event_recent` into `event_index` once it holds at least `limit` entries. Run at the start of a write
    /// transaction, so the move commits with it (or not at all). Returns whether it moved.
    @discardableResult
    static func settleRecentEvents(atLeast limit: Int = recentEventLimit, in db: Database) throws -> Bool {
        let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM event_recent")) ?? 0
        guard count > 0, count >= limit else { return false }
        try db.execute(
            sql: "INSERT INTO event_index (member_id, seq, pos) SELECT member_id, seq, pos FROM event_recent")
        try db.execute(sql: "DELETE FROM event_recent")
        return true
    }

    /// Events after `after`, oldest first: at most `limit`, and no more than fit in one frame (always at least one).
    /// A stored event that cannot be read, or would not fit (stored by an older broker), is sent in a form that can:
    /// trimmed, or `omitted` at its position, so that it never blocks the member's log.
    static func events(of member: MemberID, after: UInt64, limit: Int, in db: Database) throws -> [Event] {
        let arguments: StatementArguments = [member, Int64(clamping: after), limit]
        let older = try positions(in: "event_index", arguments, db)
        let recent = try positions(in: "event_recent", arguments, db)
        let body = try db.cachedStatement(sql: "SELECT body FROM event_log WHERE pos = ?")
        var events: [Event] = []
        var bytes = 0
        for (sequence, position) in merged(older, recent).prefix(limit) {
            guard let data = try Data.fetchOne(body, arguments: [position]) else { continue }
            let (event, size) = deliverableEvent(member: member, sequence: sequence, body: data)
            bytes += size
            if bytes > Wire.maxReplyBodyBytes, !events.isEmpty { break }
            events.append(event)
        }
        return events
    }

    /// The last sequence number of every member's log, from both parts of the map.
    static func heads(in db: Database) throws -> [MemberID: UInt64] {
        var heads: [MemberID: UInt64] = [:]
        for table in ["event_index", "event_recent"] {
            let rows = try Row.fetchCursor(db, sql: "SELECT member_id, MAX(seq) FROM \(table) GROUP BY member_id")
            while let row = try rows.next() {
                let head = UInt64(row[1] as Int64)
                heads[row[0], default: 0] = max(heads[row[0], default: 0], head)
            }
        }
        return heads
    }

    /// (sequence, position) after a sequence, in sequence order, from one part of the map.
    private static func positions(
        in table: String, _ arguments: StatementArguments, _ db: Database
    ) throws -> [(UInt64, Int64)] {
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT seq, pos FROM \(table) WHERE member_id = ? AND seq > ? ORDER BY seq LIMIT ?"),
            arguments: arguments)
        var positions: [(UInt64, Int64)] = []
        while let row = try rows.next() { positions.append((UInt64(row[0] as Int64), row[1])) }
        return positions
    }

    /// Two lists in sequence order as one, in sequence order.
    private static func merged(_ a: [(UInt64, Int64)], _ b: [(UInt64, Int64)]) -> [(UInt64, Int64)] {
        if b.isEmpty { return a }
        if a.isEmpty { return b }
        var result: [(UInt64, Int64)] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i].0 < b[j].0) {
                result.append(a[i])
                i += 1
            } else {
                result.append(b[j])
                j += 1
            }
        }
        return result
    }
}
