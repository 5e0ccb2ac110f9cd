import Foundation
import HearthCore
import HearthProtocol

extension BrokerEngine {
    /// The answer to a command whose family's partition this broker lost between its check and its transaction.
    static let partitionMoved = ErrorReply(
        .brokerUnavailable, "this family's partition moved to another broker; nothing was stored, connect again")

    /// Before a commit on a cluster: every member given an event belongs to a partition whose lease this
    /// transaction checked, and a changed directory is announced to the other brokers.
    static func fence(_ tx: inout Transaction, ownership: PartitionOwnership) throws {
        tx.admitted = try ownership.confirm(
            members: tx.changedHeads.keys, directory: tx.directory, admitted: tx.admitted ?? [], in: tx.store)
        if tx.directoryChanged {
            try (tx.store as? any ClusterStorage)?.announceDirectoryChange(by: ownership.brokerName)
        }
    }

    /// Starts serving partitions whose leases were just taken, at these epochs: in one transaction on the writer
    /// (after every transaction started before), checks the leases and reads the heads of the partitions' members
    /// from the store, replacing what this broker remembered; the partitions are served from the commit on.
    /// Returns the partitions adopted (a lease that moved meanwhile is not).
    @discardableResult
    package func adopt(_ leases: [Int: UInt64]) async throws -> Set<Int> {
        guard let ownership, !leases.isEmpty else { return [] }
        let directory = self.directory
        let sequences = self.sequences
        let adopted = try await store.transaction(
            { store in
                (store as? any ClusterStorage)?.resetOwnerCache()
                let admitted = try ownership.admit(Set(leases.keys), in: store, expected: leases)
                let members = directory.current.members.values.lazy
                    .filter { admitted.contains(ownership.partition(of: $0.familyID)) }.map(\.id)
                var heads = Dictionary(uniqueKeysWithValues: members.map { ($0, UInt64(0)) })
                let stored = try (store as? any ClusterStorage)?.heads(of: Array(members)) ?? [:]
                heads.merge(stored) { _, stored in stored }
                return Adoption(leases: leases.filter { admitted.contains($0.key) }, heads: heads)
            },
            committed: { adoption in
                sequences.replace(adoption.heads)
                ownership.markServed(adoption.leases)
            })
        return Set(adopted.leases.keys)
    }

    /// Reads the directory again from the store (another broker changed it), replacing this broker's on the writer,
    /// so that no transaction sees half of it. Returns the public keys that are no longer enrolled: their
    /// connections must be closed.
    package func reloadDirectory() async throws -> Set<String> {
        let box = self.directory
        let regions = policy.regions
        let cache = self.store as? any OwnerCaching
        let (before, after) = try await store.transaction(
            { store in
                // A member may have moved to or from a partition another broker owns: what the store kept in memory
                // of it may be stale.
                cache?.forgetOwnerCache()
                // On the writer, where the directory is only replaced by commit hooks: this is the one in use.
                let before = box.current
                guard let file = try store.storedFile() else { return (before, Directory(rules: regions)) }
                let after = try Directory(
                    file: file, keysDirectory: "/", source: "the broker database", rules: regions,
                    maxFamilyMembers: Int.max)
                return (before, after)
            },
            committed: { box.replace($0.1) })
        return Set(before.deviceByKey.keys).subtracting(after.deviceByKey.keys)
    }

    /// What an adoption hands to its commit hook.
    private struct Adoption: Sendable {
        var leases: [Int: UInt64]
        var heads: [MemberID: UInt64]
    }
}
