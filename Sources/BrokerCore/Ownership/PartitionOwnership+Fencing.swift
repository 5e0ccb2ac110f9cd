package import HearthCore
import Logging

extension PartitionOwnership {
    /// Fencing: locks the leases of `partitions` until the transaction ends and returns those this broker still holds
    /// at the epoch it serves them with (or at `expected`'s epochs). A served partition whose lease moved is dropped at
    /// once. Writes for the returned partitions commit only if the leases are unchanged at commit, which the locks
    /// guarantee: another broker's takeover waits for this transaction.
    package func admit(
        _ partitions: Set<Int>, in store: any StorageWriter, expected: [Int: UInt64]? = nil
    ) throws -> Set<Int> {
        guard !partitions.isEmpty else { return [] }
        guard let cluster = store as? any ClusterStorage else { return [] }
        let held = expected ?? served
        let rows = try cluster.lockLeases(partitions.filter { held[$0] != nil }.sorted())
        let admitted = partitions.filter { partition in
            guard let epoch = held[partition], let row = rows[partition] else { return false }
            return row.owner == brokerName && row.epoch == epoch
        }
        if expected == nil {
            let lost = drop(partitions.subtracting(admitted))
            if !lost.isEmpty {
                logger.warning("partitions lost: their leases moved", metadata: ["partitions": "\(lost.sorted())"])
            }
        }
        return admitted
    }

    /// As `admit`, but without waiting for the leases when every one of `partitions` is served: the store locks and
    /// checks them with the statements it sends next (`ClusterStorage.fenceLeases`), and the transaction fails with
    /// `FenceRefused` unless they held, nothing of it stored (then the batch runs again with `admit`). An owner's
    /// transaction that reads nothing else from the server then waits once, for its commit.
    func admitAhead(_ partitions: Set<Int>, in store: any StorageWriter) throws -> Set<Int> {
        guard !partitions.isEmpty else { return [] }
        let held = served
        guard let cluster = store as? any ClusterStorage, partitions.allSatisfy({ held[$0] != nil }),
            cluster.fenceLeases(held.filter { partitions.contains($0.key) }, owner: brokerName)
        else { return try admit(partitions, in: store) }
        return partitions
    }

    /// Checks, before a commit, that every member given a new event belongs to a partition admitted in this
    /// transaction (locking and checking the others now); throws `PartitionMoved` otherwise.
    package func confirm(
        members: some Collection<MemberID>, directory: Directory, admitted: Set<Int>, in store: any StorageWriter
    ) throws -> Set<Int> {
        let touched = Set(members.map { partition(of: directory.members[$0]?.familyID) })
        let unchecked = touched.subtracting(admitted)
        guard !unchecked.isEmpty else { return admitted }
        let nowAdmitted = try admit(unchecked, in: store)
        let refused = unchecked.subtracting(nowAdmitted)
        guard refused.isEmpty else { throw PartitionMoved(partitions: refused.sorted()) }
        return admitted.union(nowAdmitted)
    }
}
