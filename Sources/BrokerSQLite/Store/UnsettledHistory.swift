import Foundation
import GRDB

/// How many history rows are not settled yet (`settled = 0`, `v6-history-recent`), as the writer counts them: each
/// write transaction starts by asking whether they reached `BrokerStore.recentHistoryLimit`, and counting them in SQL
/// scanned up to that many index entries per transaction (docs/decisions/0002-ask-windows-in-memory.md).
///
/// Exactly the rows' count, or unknown: read with one `COUNT(*)` when unknown, then kept by the writer's appends
/// (`WriterStatements.appendHistory`) and the settling, in its transaction; a command's savepoint that rolls back takes
/// its appends back out, and a transaction that rolls back forgets the count. Forgotten with the writer's other memory
/// (`WriterStatements.forgetMemory`). Reached only under the store's writer
/// lock (decision 0024).
final class UnsettledHistory {
    /// The rows' count with the open transaction's changes; nil when unknown.
    private(set) var known: Int?
    /// Rows the open transaction appended, for rolling a savepoint back.
    private var appended = 0

    /// The unsettled rows, counted in SQL when unknown.
    func count(_ db: Database) throws -> Int {
        if let known { return known }
        let counted = try BrokerStore.unsettledHistoryCount(in: db)
        known = counted
        return counted
    }

    /// A row the open transaction appended.
    func added() {
        known? += 1
        appended += 1
    }

    /// The open transaction settled every row.
    func settled() { known = 0 }

    /// Where a savepoint starts, for `rollback(to:)`.
    var mark: Int { appended }

    /// Takes out the rows appended since `mark`: their savepoint rolled back.
    func rollback(to mark: Int) {
        known? -= appended - mark
        appended = mark
    }

    /// The open transaction committed: its rows stay counted.
    func committed() { appended = 0 }

    /// Forgets the count: a transaction rolled back, or the rows may have changed outside the writer's transactions.
    func invalidate() {
        known = nil
        appended = 0
    }
}
