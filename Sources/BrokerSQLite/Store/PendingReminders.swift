import Foundation
import GRDB

/// The pending questions' reminders, as the writer keeps them: the sweep asks for the due ones, which SQLite answered
/// from a table of its own, one B-tree row and one index entry per ask (migration `v10-reminder-in-question`;
/// docs/decisions/0006-reminders-in-question-row.md).
///
/// The rows hold each date (`question.remind_at`: it depends on the family's question times at the ask, so it is
/// stored, not recomputed); this is a copy of the pending questions' dates, read from their rows when unknown (at the
/// first sweep after start-up, after the writer forgot its memory), then kept by the writer's own changes in its
/// transaction: a reminder scheduled, sent or found moot, a question resolved. A command's savepoint or a transaction
/// that rolls back takes its changes back out (and forgets everything if the rows were read inside it: reading them
/// again costs a pass over the pending questions, so the memory is kept where it can be); `WriterStatements.forgetMemory`
/// forgets everything. An entry whose question changed otherwise is harmless:
/// the sweep reads each due question and drops a reminder that is moot. Reached only under the
/// store's writer lock (decision 0024).
final class PendingReminders {
    /// A reminder's date in milliseconds since 1970, and its question's number (the order among equal dates).
    struct Reminder: Equatable {
        let at: Int64
        let num: Int64
    }

    private enum Change {
        case set(UUID, before: Reminder?)
        /// The rows were read here: a savepoint begun before cannot be taken back entry by entry.
        case read
    }

    /// Every pending reminder with the open transaction's changes; nil when unknown.
    private var reminders: [UUID: Reminder]?
    /// No reminder is due before it: a sweep with nothing due costs a comparison, not a pass over the entries.
    private var earliest = Int64.max
    private var undo: [Change] = []

    /// Reminders held, nil when unknown (tests).
    var count: Int? { reminders?.count }

    /// Reads the pending questions' reminders from their rows when unknown.
    func load(_ db: Database) throws {
        guard reminders == nil else { return }
        var read: [UUID: Reminder] = [:]
        var earliest = Int64.max
        for (id, reminder) in try BrokerStore.pendingReminders(in: db) {
            read[id] = reminder
            earliest = min(earliest, reminder.at)
        }
        reminders = read
        self.earliest = earliest
        undo.append(.read)
    }

    /// Up to `limit` questions whose reminder is due at `now` (milliseconds), earliest first. Loaded first.
    func due(at now: Int64, limit: Int) -> [UUID] {
        guard let reminders, now >= earliest else { return [] }
        var due: [(Reminder, UUID)] = []
        var next = Int64.max
        for (id, reminder) in reminders {
            if reminder.at <= now { due.append((reminder, id)) } else { next = min(next, reminder.at) }
        }
        due.sort { ($0.0.at, $0.0.num) < ($1.0.at, $1.0.num) }
        // Those returned stay until the sweep removes them: still a lower bound.
        earliest = due.first?.0.at ?? next
        return due.prefix(limit).map { $0.1 }
    }

    /// The open transaction set question `id`'s reminder (a new date replaces one it had).
    func scheduled(_ id: UUID, _ reminder: Reminder) {
        guard reminders != nil else { return }
        undo.append(.set(id, before: reminders?[id]))
        reminders?[id] = reminder
        earliest = min(earliest, reminder.at)
    }

    /// The open transaction sent question `id`'s reminder, found it moot, or resolved the question.
    func removed(_ id: UUID) {
        guard let before = reminders?[id] else { return }
        undo.append(.set(id, before: before))
        reminders?[id] = nil
    }

    /// Where a savepoint starts, for `rollback(to:)`.
    var mark: Int { undo.count }

    /// Takes back the changes made since `mark`: their savepoint rolled back.
    func rollback(to mark: Int) {
        while undo.count > mark {
            switch undo.removeLast() {
            case .read:
                // Changes before the read are in the entries, with nothing to undo them by.
                return invalidate()
            case .set(let id, let before):
                reminders?[id] = before
                if let before { earliest = min(earliest, before.at) }
            }
        }
    }

    /// The open transaction committed: its changes stay.
    func committed() { undo.removeAll(keepingCapacity: true) }

    /// Forgets every entry: a transaction rolled back, or the rows may have changed outside the writer's transactions.
    func invalidate() {
        reminders = nil
        earliest = .max
        undo.removeAll()
    }
}
