#if PostgreSQL
import BrokerCore
import Foundation
import HearthCore
import PostgresNIO

/// An owner's asks answered from memory (`CachedChild`): the child's rows are read whole the first time it asks after
/// an adoption, and kept by this broker's own writes, staged as the owner cache's other changes are.
extension PostgresTransaction {
    /// The child's rows as this transaction would read them, when the cache knows them.
    func cachedChild(_ child: MemberID) -> CachedChild? {
        guard let cache, usesCache else { return nil }
        for change in held.cacheChanges.reversed() {
            switch change {
            case .child(child, let rows): return rows
            case .forgetChildren: return nil
            default: continue
            }
        }
        return cache.child(child)
    }

    static func readChild(_ child: MemberID, since: Int64) -> HotStatements.ChildRows { .init("\(child) \(since)") }

    /// Whether an ask counting from `since` (ms) must read the child's rows: the cache does not know them, or not
    /// from that far back.
    func mustReadChild(_ child: MemberID, since: Int64) -> Bool {
        guard let known = cachedChild(child) else { return true }
        return known.asksSince > since
    }

    /// The child's rows, complete for ask times from `since`: as the cache knows them, else read whole (once per
    /// child per adoption, sent ahead by `willCheckAsk`) and kept. Nil when the cache is not in use.
    func loadedChild(_ child: MemberID, since: Date) throws -> CachedChild? {
        guard usesCache else { return nil }
        let from = Self.milliseconds(since)
        if var known = cachedChild(child), known.asksSince <= from {
            if let first = known.askedAt.first, first < from {
                // Ask times no ask counts any more are dropped, so that the list stays as short as the limit's window.
                known.forgetAsks(before: from)
                stage(.child(child, known))
            }
            return known
        }
        var rows = CachedChild(settings: nil, contacts: [:], askedAt: [], asksSince: from, pending: [])
        var approved = Set<CommunicationHandle>()
        for row in try self.rows(Self.readChild(child, since: from)) {
            let read = try AskReadRow(row)
            switch read.part {
            case 1: rows.askedAt.append(read.number ?? 0)
            case 2: rows.settings = read.blob
            case 3: if let handle = read.handle { rows.contacts[handle] = read.downtime ?? false }
            case 4: if let handle = read.handle { approved.insert(handle) }
            case 5: rows.pending.append(try read.question())
            default: throw PostgresStore.UnexpectedRow(description: "a child's row of part \(read.part)")
            }
        }
        stage(.child(child, rows))
        if cachedHandles(of: child) == nil { stage(.handles(child, approved)) }
        return rows
    }

    /// Stages `change` to the child's rows, when the cache knows them; when it does not, they are read whole, with
    /// the change, the next time the child asks.
    func updateCachedChild(_ child: MemberID, _ change: (inout CachedChild) -> Void) {
        guard var rows = cachedChild(child) else { return }
        change(&rows)
        stage(.child(child, rows))
    }

    /// A question resolved: no longer its child's pending question. When this transaction cannot tell whose it was,
    /// every child's rows are read again (a pending question kept for a child must not outlive its resolution).
    func stageResolved(_ id: UUID, child: MemberID?) {
        guard usesCache else { return }
        guard let child else { return stage(.forgetChildren) }
        updateCachedChild(child) { rows in rows.pending.removeAll { $0.asked.question.id == id } }
    }
}
#endif
