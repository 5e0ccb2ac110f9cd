#if PostgreSQL
import BrokerCore
import HearthCore
import PostgresNIO

extension PostgresTransaction: ClusterStorage {
    func lockLeases(_ partitions: [Int]) throws -> [Int: LeaseRow] {
        guard !partitions.isEmpty else { return [:] }
        let ids = partitions.map { Int32($0) }
        var leases: [Int: LeaseRow] = [:]
        for row in try rows(HotStatements.LockLeases("\(ids)")) {
            let (partition, owner, epoch) = try row.decode((Int32, String?, Int64).self)
            leases[Int(partition)] = LeaseRow(owner: owner, epoch: UInt64(epoch))
        }
        return leases
    }

    func fenceLeases(_ leases: [Int: UInt64], owner: String) -> Bool {
        guard !leases.isEmpty else { return true }
        let ordered = leases.sorted { $0.key < $1.key }
        let ids = ordered.map { Int32($0.key) }
        let epochs = ordered.map { Int64(clamping: $0.value) }
        held.fence = send(HotStatements.FenceLeases("\(ids) \(owner) \(epochs)"))
        return true
    }

    /// Whether the check of `fenceLeases` failed on the server: a lease moved (or the check could not be made), and
    /// the transaction was aborted with it. False while it is not answered, and for a lost connection.
    var fenceRefused: Bool {
        guard let fence = held.fence, fence.isAnswered else { return false }
        do {
            _ = try fence.wait()
            return false
        } catch {
            return !PostgresSession.isConnectionLoss(error) && !connection.isClosed
        }
    }

    func heads(of members: [MemberID]) throws -> [MemberID: UInt64] {
        guard !members.isEmpty else { return [:] }
        try flush()
        var heads: [MemberID: UInt64] = [:]
        for row in try rows(
            "SELECT member_id, MAX(seq) FROM event WHERE member_id = ANY(\(members)) GROUP BY member_id")
        {
            let (member, head) = try row.decode((String, Int64).self)
            heads[member] = UInt64(head)
        }
        return heads
    }

    func resetOwnerCache() {
        guard let cache else { return }
        cache.reset()
        held.cacheChanges.removeAll()
        held.cacheGeneration = cache.generation
    }

    func announceDirectoryChange(by broker: String) throws {
        // A member may have moved to or from a partition another broker owns, whose writes this cache never saw.
        cache?.forget()
        try post("SELECT pg_notify(\(PostgresStore.directoryChannel), \(broker))")
    }
}
#endif
