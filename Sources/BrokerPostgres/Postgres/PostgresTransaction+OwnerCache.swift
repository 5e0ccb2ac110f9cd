#if PostgreSQL
import BrokerCore
import Foundation
import HearthCore
import PostgresNIO

/// Reads the owner cache answers, and the changes this transaction stages for it (`OwnerCache`): what the transaction
/// wrote or read so far wins over what the cache held when it began.
extension PostgresTransaction {
    /// Whether this transaction may answer reads from the owner cache.
    var usesCache: Bool { cache?.isEnabled == true }

    /// The question as this transaction would read it, when the cache knows it.
    func cachedQuestion(_ id: UUID) -> Stored.Question? {
        guard let cache, usesCache else { return nil }
        for change in held.cacheChanges.reversed() {
            if case .question(let question) = change, question.asked.question.id == id { return question }
        }
        return cache.question(id)
    }

    /// The child's approved handles as this transaction would read them, when the cache knows them whole.
    func cachedHandles(of child: MemberID) -> Set<CommunicationHandle>? {
        guard let cache, usesCache else { return nil }
        for change in held.cacheChanges.reversed() {
            if case .handles(child, let set) = change { return set }
        }
        return cache.handles(of: child)
    }

    /// The child's approved handles, read whole from the server when the cache does not know them yet (once per child
    /// per adoption); nil when the cache is not in use.
    func approvedSet(of child: MemberID) throws -> Set<CommunicationHandle>? {
        guard usesCache else { return nil }
        if let known = cachedHandles(of: child) { return known }
        let known = try handleSet(rows(HotStatements.ApprovedHandles("\(child)")))
        stage(.handles(child, known))
        return known
    }

    /// Notes a change (or a read) for the cache, applied if the transaction commits.
    func stage(_ change: OwnerCache.Change) {
        guard usesCache else { return }
        held.cacheChanges.append(change)
    }

    /// A question resolved: its cached row, if any, now carries `resolution`, and it is no longer its child's
    /// pending question.
    func stageResolution(_ id: UUID, _ resolution: Resolution) {
        let question = cachedQuestion(id)
        stageResolved(id, child: question?.asked.childMemberID)
        guard let question else { return }
        stage(.question(Stored.Question(asked: question.asked, resolution: resolution)))
    }

    /// `handles` not in `known`, in their order, each once.
    static func unknown(_ handles: [CommunicationHandle], in known: Set<CommunicationHandle>) -> [CommunicationHandle] {
        var seen = known
        return handles.filter { seen.insert($0).inserted }
    }

    /// Resolves the question and approves `handles` for the child, held with the transaction's other resolutions when
    /// the cache knows the child's approved handles (which ones are new is then known without asking); returns those
    /// that were not approved.
    func resolve(
        _ id: UUID, with resolution: Resolution, approving handles: [CommunicationHandle], child: MemberID
    ) throws -> [CommunicationHandle] {
        guard !handles.isEmpty, let known = try approvedSet(of: child) else {
            try resolve(id, with: resolution)
            return try addKnownHandles(handles, child: child, question: id)
        }
        let added = Self.unknown(handles, in: known)
        guard !added.isEmpty else {
            try resolve(id, with: resolution)
            return []
        }
        holdResolution(id, Self.encodeResolution(resolution), child: child, approving: added)
        stageResolution(id, resolution)
        stage(.handles(child, known.union(added)))
        return added
    }
}
#endif
