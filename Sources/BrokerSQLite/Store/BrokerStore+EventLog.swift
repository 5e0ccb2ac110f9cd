import BrokerCore
import Foundation
import GRDB
import HearthCore
import HearthProtocol

/// Every member's event log, laid out so that a commit writes few pages (migrations `v3-event-log`, `v9-event-tail`).
///
/// Keyed by (member, sequence) in one B-tree, a batch dirtied a page per member it touched: ~1,000 pages of WAL for
/// ~180 commands with 200 families, written and checkpointed at every commit. Now events are appended in commit order
/// to `event_log` (a rowid table: a batch fills a few pages at its end), one row per event. The map from (member,
/// sequence) to position is `event_index` for the log up to `event_indexed.pos`; the rows after it are the recent
/// part, found by position (the writer keeps their map in memory, `RecentEvents`), and move into `event_index` once
/// there are `recentEventLimit` of them, so each member's page there is dirtied once per move instead of once per
/// commit. A sequence is stored once per member, and none at or below the member's last in `event_index`; the writer
/// checks both from memory (`WriterStatements.movedEventHeads`, `RecentEvents`).
extension BrokerStore {
    /// Entries of the recent part before they move to `event_index`: the pages written per commit for both parts were
    /// fewest near 4,096 with a few hundred members (measured on a model of the schema:
    /// docs/decisions/0001-event-log-in-commit-order.md), and a reader scans
    /// about this many rows for the recent part (a move waits for the next transaction's start).
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

    /// Without the v3 triggers: a trigger made each event's insert open a statement journal, copying the
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

    /// Without `event_recent`: the recent part of the map is the log itself after `event_indexed.pos`, the
    /// last position moved into `event_index`, so the broker writes one row per event, not a row and its position.
    /// The writer keeps the recent part's positions in memory (`RecentEvents`); other connections read them from the
    /// log's last rows. The migration moves the recent entries of an older store into `event_index`.
    static func registerEventTailMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v9-event-tail") { db in
            try db.execute(
                sql: """
                    CREATE TABLE event_indexed (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        pos INTEGER NOT NULL
                    );
                    INSERT INTO event_index (member_id, seq, pos)
                        SELECT member_id, seq, pos FROM event_recent ORDER BY member_id, seq;
                    INSERT INTO event_indexed (id, pos) VALUES (1, COALESCE((SELECT MAX(pos) FROM event_log), 0));
                    DROP TABLE event_recent;
                    """)
        }
    }

    /// The recent part of the map: the log's rows after the last position moved into `event_index`.
    static let recentEventsFilter = "pos > (SELECT pos FROM event_indexed)"

    /// Stores `event`; `body` is its wire encoding (`Event.publicationFrame`), so each event is encoded once. A sequence
    /// number at or below the member's last one moved to `event_index` is refused, and one in the recent part (read
    /// by a scan of its rows): a sequence number is stored once per member. (The writer's `WriterStatements.appendEvent`
    /// applies the same rule from memory.)
    static func appendEvent(_ event: Event, body: ArraySlice<UInt8>, in db: Database) throws {
        let moved = try Int64.fetchOne(
            db.cachedStatement(sql: WriterStatements.Query.movedEventHead.sql), arguments: [event.memberID])
        let recent = try Bool.fetchOne(
            db.cachedStatement(
                sql: "SELECT EXISTS (SELECT 1 FROM event_log WHERE \(recentEventsFilter) AND member_id = ? AND seq = ?)"
            ),
            arguments: [event.memberID, Int64(event.sequence)])
        guard event.sequence > UInt64(clamping: moved ?? 0), recent != true else { throw sequenceAlreadyStored(event) }
        try insertEvent(event, body: body, in: db)
    }

    /// The log's row of `event`, unchecked: callers know its sequence number is above the member's last.
    static func insertEvent(_ event: Event, body: ArraySlice<UInt8>, in db: Database) throws {
        try db.cachedStatement(sql: WriterStatements.Query.appendEvent.sql)
            .execute(arguments: [event.memberID, Int64(event.sequence), Data(body)])
    }

    /// The member's last stored sequence number (0 for none), from both parts. Not on the broker's path (it scans the
    /// recent part's rows): the benchmarks' bulk writer.
    static func lastSequence(of member: MemberID, in db: Database) throws -> UInt64 {
        let recent = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT MAX(seq) FROM event_log WHERE \(recentEventsFilter) AND member_id = ?"),
            arguments: [member])
        let moved = try Int64.fetchOne(
            db.cachedStatement(sql: WriterStatements.Query.movedEventHead.sql), arguments: [member])
        return UInt64(clamping: max(recent ?? 0, moved ?? 0))
    }

    /// The refusal of a sequence number already stored (the v3 trigger's error).
    static func sequenceAlreadyStored(_ event: Event) -> DatabaseError {
        DatabaseError(
            resultCode: .SQLITE_CONSTRAINT,
            message: "sequence \(event.sequence) of \(event.memberID) is already stored")
    }

    /// Moves the recent part into `event_index` once it holds at least `limit` entries. Run at the start of a write
    /// transaction, so the move commits with it (or not at all). Returns whether it moved.
    @discardableResult
    static func settleRecentEvents(atLeast limit: Int = recentEventLimit, in db: Database) throws -> Bool {
        let count =
            try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM event_log WHERE \(recentEventsFilter)"))
            ?? 0
        guard count > 0, count >= limit else { return false }
        try moveRecentEvents(in: db)
        return true
    }

    /// Every entry of the recent part into `event_index`, and the last position moved with them. In the log's order:
    /// sorting them by key first cost more than it saved (measured: docs/decisions/0018-tried-and-left-out.md).
    static func moveRecentEvents(in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO event_index (member_id, seq, pos)
                    SELECT member_id, seq, pos FROM event_log WHERE \(recentEventsFilter);
                UPDATE event_indexed SET pos = (SELECT COALESCE(MAX(pos), 0) FROM event_log);
                """)
    }

    /// Events after `after`, oldest first: at most `limit`, and no more than fit in one frame (always at least one).
    /// A stored event that cannot be read, or would not fit (stored by an older broker), is sent in a form that can:
    /// trimmed, or `omitted` at its position, so that it never blocks the member's log. `recent` is the recent part's
    /// (sequence, position) after `after` in sequence order, when the caller knows it (the writer); otherwise read.
    static func events(
        of member: MemberID, after: UInt64, limit: Int, recent: [(UInt64, Int64)]? = nil, in db: Database
    ) throws -> [Event] {
        let arguments: StatementArguments = [member, Int64(clamping: after), limit]
        let older = try positions(
            sql: "SELECT seq, pos FROM event_index WHERE member_id = ? AND seq > ? ORDER BY seq LIMIT ?", arguments, db)
        let recent =
            try recent
            ?? positions(
                sql: """
                    SELECT seq, pos FROM event_log WHERE \(recentEventsFilter) AND member_id = ? AND seq > ?
                    ORDER BY seq LIMIT ?
                    """, arguments, db)
        let body = try db.cachedStatement(sql: "SELECT body FROM event_log WHERE pos = ?")
        var events: [Event] = []
        var bytes = 0
        for (sequence, position) in merged(older, recent).prefix(limit) {
            guard let data = try Data.fetchOne(body, arguments: [position]) else { continue }
            let (event, size) = Stored.deliverableEvent(member: member, sequence: sequence, body: data)
            bytes += size
            if bytes > Wire.maxReplyBodyBytes, !events.isEmpty { break }
            events.append(event)
        }
        return events
    }

    /// The last sequence number of every member's log, from both parts of the map.
    static func heads(in db: Database) throws -> [MemberID: UInt64] {
        var heads: [MemberID: UInt64] = [:]
        let parts = [
            "SELECT member_id, MAX(seq) FROM event_index GROUP BY member_id",
            "SELECT member_id, MAX(seq) FROM event_log WHERE \(recentEventsFilter) GROUP BY member_id",
        ]
        for sql in parts {
            let rows = try Row.fetchCursor(db, sql: sql)
            while let row = try rows.next() {
                let head = UInt64(row[1] as Int64)
                heads[row[0], default: 0] = max(heads[row[0], default: 0], head)
            }
        }
        return heads
    }

    /// (sequence, position) after a sequence, in sequence order, from one part of the map.
    private static func positions(
        sql: String, _ arguments: StatementArguments, _ db: Database
    ) throws -> [(UInt64, Int64)] {
        let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
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
