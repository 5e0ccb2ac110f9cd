import BrokerCore
import Foundation
import GRDB
import HearthCore

/// Each child's recent ask times, kept by the writer so that the ask limit is checked without a query and the
/// `question` table needs no index by child and time (one page per child a commit touched;
/// docs/decisions/0002-ask-windows-in-memory.md).
///
/// Exactly the rows of `question`: after a load from the database, every question the writer inserts is added in its
/// transaction and taken out again when its savepoint or transaction rolls back, so that the memory is never ahead
/// of the database. It is forgotten, and loaded again by the next count, after a write outside
/// `BrokerStore.transaction`, a commit by another connection (`PRAGMA data_version`), or on a new connection; a
/// count further back than the last (the clock went back) loads it again too. Reached only under
/// the store's writer lock (decision 0024). (The PostgreSQL store, whose partitions move between brokers, counts with a query.)
final class AskWindows {
    /// Ask times of each child in milliseconds, ascending: every question asked at or after `from`, and maybe older
    /// ones not yet pruned.
    private var times: [MemberID: [Int64]] = [:]
    /// Nil until loaded; then the oldest time a count may ask about. It only moves forward: a count from an older
    /// time (the clock went back) loads again.
    private var from: Int64?
    /// Questions added in the open transaction, in order, for rolling them back; `kept` when `times` holds them.
    private var undo: [(child: MemberID, at: Int64, kept: Bool)] = []
    /// Counts since every child was last pruned.
    private var countsSincePrune = 0

    /// How many times it was loaded from the database (tests: it is not loaded per transaction).
    private(set) var loads = 0

    /// Counts after which every child is pruned, so that children who stopped asking do not keep their times.
    static let pruneEvery = 4096

    /// How many questions `child` asked at or after `since`, counting no further than `limit`.
    func count(child: MemberID, since: Date, upTo limit: Int, in db: Database) throws -> Int {
        let since = Stored.milliseconds(since)
        if let from, since >= from {
            self.from = since
        } else {
            try load(since: since, db)
        }
        countsSincePrune += 1
        if countsSincePrune >= Self.pruneEvery {
            countsSincePrune = 0
            for other in Array(times.keys) { prune(other, before: since) }
        }
        return min(prune(child, before: since), limit)
    }

    /// Drops the child's times before `since` (no later count asks about them); returns how many are left.
    @discardableResult
    private func prune(_ child: MemberID, before since: Int64) -> Int {
        // In place (`times[child]!`): a copy taken out of the dictionary would be a second reference to the array,
        // so changing it would copy it.
        guard let first = times[child]?.first else { return 0 }
        guard first < since else { return times[child]!.count }
        let cut = times[child]!.firstIndex { $0 >= since } ?? times[child]!.endIndex
        times[child]!.removeSubrange(..<cut)
        let left = times[child]!.count
        if left == 0 { times[child] = nil }
        return left
    }

    /// A question stored in the open transaction.
    func added(child: MemberID, at date: Date) {
        let at = Stored.milliseconds(date)
        // Not loaded yet: a load reads it (and marks it kept). Older than any count may ask about: never counted.
        guard let from, at >= from else {
            undo.append((child, at, false))
            return
        }
        // In place, as in `prune`.
        let index = times[child]?.lastIndex { $0 <= at }.map { $0 + 1 } ?? 0
        times[child, default: []].insert(at, at: index)
        undo.append((child, at, true))
    }

    /// Where a savepoint starts, for `rollback(to:)`.
    var mark: Int { undo.count }

    /// Takes out the questions added since `mark`: their savepoint rolled back.
    func rollback(to mark: Int) {
        while undo.count > mark {
            let (child, at, inMemory) = undo.removeLast()
            guard inMemory, var kept = times[child], let index = kept.lastIndex(of: at) else { continue }
            kept.remove(at: index)
            times[child] = kept.isEmpty ? nil : kept
        }
    }

    /// The open transaction committed: what it added stays.
    func committed() { undo.removeAll(keepingCapacity: true) }

    /// The open transaction rolled back, or its commit failed: what it added goes.
    func rolledBack() { rollback(to: 0) }

    /// Forgets everything: the next count loads from the database.
    func invalidate() {
        times = [:]
        from = nil
        undo.removeAll()
    }

    /// Every question asked at or after `since`, read inside the open transaction: with its own writes, which a
    /// rollback must then take out of memory too.
    private func load(since: Int64, _ db: Database) throws {
        var loaded: [MemberID: [Int64]] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT child_id, asked_at FROM question WHERE asked_at >= ? ORDER BY asked_at",
            arguments: [since])
        while let row = try rows.next() {
            loaded[row[0] as String, default: []].append(row[1])
        }
        times = loaded
        from = since
        loads += 1
        undo = undo.map { ($0.child, $0.at, $0.at >= since) }
    }
}
