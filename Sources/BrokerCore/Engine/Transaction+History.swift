import Foundation
import HearthCore
import HearthProtocol

/// The family's history kept by the broker (docs/FAMILY-RULES.md): each decision, expiry, withdrawal and change to a
/// child's settings is stored in the transaction that makes it, and read back a page at a time by any guardian.
extension Transaction {
    /// Stores `entry` in the child's history of `family`. A settings change and an acknowledged update also go to
    /// every parent's log as `historyRecorded`, so each guardian's devices learn who changed what and what the child
    /// acknowledged; a question's ending already reaches them as `questionResolved`. Nothing for a child in no family, or when nothing changed (`entry` nil).
    mutating func recordHistory(_ entry: HistoryEntry?, family: FamilyID?) throws {
        guard var entry, let family else { return }
        // Only a settings change's entry is published, with its id, and an acknowledged update's: an adult is told of
        // it (`significantAppChangeRequiresAdultNotification`), where a question's outcome reaches them as itself.
        guard entry.kind.isSettingsChange || entry.kind == .updateAcknowledged else {
            return try store.appendHistoryWithoutID(entry, family: family)
        }
        entry.id = try store.appendHistory(entry, family: family)
        for parent in directory.parents(of: family) {
            try publish(.historyRecorded(entry), to: parent)
        }
    }

    /// A page of the child's history for a parent of its family. A cursor that is not an entry of this child's
    /// history in this family gets `invalidCursor`, the same whether or not the number exists elsewhere.
    func historyPage(_ query: HistoryQuery, caller: Directory.Member) throws -> BrokerReply {
        let child = try childForSettings(query.childID, caller: caller, allowSelf: false)
        guard let family = child.familyID else { throw ErrorReply(.notFound, "no child \(child.id) in your family") }
        if query.cursor != 0, try !store.historyHas(query.cursor, child: child.id, family: family) {
            throw ErrorReply(
                .invalidCursor,
                "history.cursor: \(query.cursor) is not an entry of \(child.id)'s history; start again from 0")
        }
        let limit = Int(min(max(query.limit, 1), HistoryQuery.maxLimit))
        // One more than asked for: whether another page follows.
        let found = try store.history(of: child.id, family: family, query: query, limit: limit + 1)
        var entries: [HistoryEntry] = []
        var bytes = 0
        for entry in found.prefix(limit) {
            var w = WireWriter()
            w.historyEntry(entry)
            // As many as fit in one frame; an entry is small (`HistoryEntry.maxHandles`), so the first always does.
            guard bytes + w.bytes.count <= Wire.maxReplyBodyBytes else { break }
            bytes += w.bytes.count
            entries.append(entry)
        }
        let next = found.count > entries.count ? entries.last?.id : nil
        return .historyPage(childID: child.id, entries, next: next)
    }
}
