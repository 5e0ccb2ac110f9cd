import Foundation
import GRDB
import HearthCore

/// The event log's recent part as the writer knows it: each member's (sequence, position) of the rows of `event_log`
/// after the last position moved into `event_index` (`v9-event-tail`), so that an event is one row, with no second
/// B-tree to write per event (docs/decisions/0001-event-log-in-commit-order.md).
///
/// Exactly those rows, never ahead of them: loaded in one scan at a transaction's start, when forgotten; each event
/// the writer appends added in its transaction and taken out again when its savepoint rolls back; emptied by a move.
/// Forgotten, with the writer's other memory, when its transaction rolls back, after a write outside the engine's
/// transactions, a commit by another connection, or on a new connection (`WriterStatements.forgetMemory`). Reached
/// only under the store's writer lock (decision 0024).
final class RecentEvents {
    /// Each member's entries, in sequence order.
    private var entries: [MemberID: [(sequence: UInt64, position: Int64)]] = [:]
    private var loaded = false
    /// Entries the open transaction added, in order, for rolling a savepoint back.
    private var undo: [(member: MemberID, sequence: UInt64)] = []

    /// Entries held: the recent part's rows.
    private(set) var count = 0
    /// How many times it was loaded from the database (tests: not once per transaction).
    private(set) var loads = 0

    /// Reads the recent part if it is not in memory: at a transaction's start, before the transaction writes events.
    func load(_ db: Database) throws {
        guard !loaded else { return }
        var read: [MemberID: [(sequence: UInt64, position: Int64)]] = [:]
        var count = 0
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT member_id, seq, pos FROM event_log WHERE \(BrokerStore.recentEventsFilter) ORDER BY pos"))
        while let row = try rows.next() {
            read[row[0] as MemberID, default: []].append((UInt64(row[1] as Int64), row[2]))
            count += 1
        }
        // Appended in sequence order by the engine, but the store takes any order.
        for member in read.keys where !read[member]!.isSorted { read[member]!.sort { $0.sequence < $1.sequence } }
        entries = read
        self.count = count
        undo.removeAll()
        loaded = true
        loads += 1
    }

    /// The member's last sequence number in the recent part; nil when it has none there.
    func last(of member: MemberID) -> UInt64? { entries[member]?.last?.sequence }

    /// Whether the recent part holds the member's `sequence`.
    func contains(_ member: MemberID, _ sequence: UInt64) -> Bool {
        guard let list = entries[member] else { return false }
        let index = Self.index(of: sequence, in: list)
        return index < list.count && list[index].sequence == sequence
    }

    /// The member's (sequence, position) after `after`, in sequence order, at most `limit`.
    func positions(of member: MemberID, after: UInt64, limit: Int) -> [(UInt64, Int64)] {
        guard let list = entries[member] else { return [] }
        let start = list.firstIndex { $0.sequence > after } ?? list.endIndex
        return list[start...].prefix(limit).map { ($0.sequence, $0.position) }
    }

    /// Every member's last sequence number in the recent part.
    var heads: [MemberID: UInt64] { entries.compactMapValues { $0.last?.sequence } }

    /// An event the open transaction appended: the engine's are above the member's last, so they go at the end.
    func added(member: MemberID, sequence: UInt64, position: Int64) {
        // In place: a copy taken out of the dictionary would copy the array to change it.
        if let last = entries[member]?.last, last.sequence > sequence {
            entries[member]!.insert((sequence, position), at: Self.index(of: sequence, in: entries[member]!))
        } else {
            entries[member, default: []].append((sequence, position))
        }
        count += 1
        undo.append((member, sequence))
    }

    /// Where a savepoint starts, for `rollback(to:)`.
    var mark: Int { undo.count }

    /// Takes out the events appended since `mark`: their savepoint rolled back.
    func rollback(to mark: Int) {
        while undo.count > mark {
            let (member, sequence) = undo.removeLast()
            guard let list = entries[member] else { continue }
            let index = Self.index(of: sequence, in: list)
            guard index < list.count, list[index].sequence == sequence else { continue }
            entries[member]!.remove(at: index)
            if entries[member]!.isEmpty { entries[member] = nil }
            count -= 1
        }
    }

    /// The open transaction committed: what it added stays.
    func committed() { undo.removeAll(keepingCapacity: true) }

    /// The recent part moved into `event_index`: it is empty.
    func moved() {
        entries.removeAll(keepingCapacity: true)
        count = 0
        undo.removeAll()
    }

    /// Where `sequence` is, or would go, in a member's entries.
    private static func index(of sequence: UInt64, in list: [(sequence: UInt64, position: Int64)]) -> Int {
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle].sequence < sequence { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Forgets everything: the next transaction loads it again.
    func invalidate() {
        entries = [:]
        count = 0
        undo.removeAll()
        loaded = false
    }
}

extension Array where Element == (sequence: UInt64, position: Int64) {
    fileprivate var isSorted: Bool { zip(self, dropFirst()).allSatisfy { $0.sequence < $1.sequence } }
}
