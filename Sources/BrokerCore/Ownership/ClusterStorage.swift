package import HearthCore

/// What a cluster of brokers needs of a write transaction on the store they share (PostgreSQL's): the fencing check,
/// the heads of a partition's members when it is taken over, and the directory's change notice.
package protocol ClusterStorage {
    /// The lease rows of `partitions`, locked against any change until the transaction ends (`FOR SHARE`): a lease
    /// checked here cannot move to another broker before this transaction commits or rolls back.
    func lockLeases(_ partitions: [Int]) throws -> [Int: LeaseRow]
    /// Locks the leases of `partitions` as `lockLeases` does, without waiting for them: the transaction fails
    /// (`FenceRefused` at its commit, or at the first statement it waits for) unless each is held by `owner` at the
    /// epoch given. False when the store cannot check them so (then `lockLeases`).
    func fenceLeases(_ leases: [Int: UInt64], owner: String) -> Bool
    /// The last sequence number of each of `members` that has events.
    func heads(of members: [MemberID]) throws -> [MemberID: UInt64]
    /// Tells every broker, once this transaction commits, that the directory changed (`NOTIFY`).
    func announceDirectoryChange(by broker: String) throws
    /// Partitions are being adopted: the store forgets what it kept in memory of the rows of any partition (another
    /// broker may have written them meanwhile) and may keep them from now on, this broker being their only writer.
    func resetOwnerCache()
}

/// A store that keeps a partition owner's rows in memory (`OwnerCache`): told when a lease is lost.
package protocol OwnerCaching: Sendable {
    /// Forgets every row kept in memory.
    func forgetOwnerCache()
}

/// One partition's lease as stored: its owner (nil before anyone took it) and epoch.
package struct LeaseRow: Sendable, Equatable {
    package var owner: String?
    package var epoch: UInt64

    package init(owner: String?, epoch: UInt64) {
        self.owner = owner
        self.epoch = epoch
    }
}

/// A transaction would write for a partition this broker does not hold (any more): it is rolled back.
package struct PartitionMoved: Error, CustomStringConvertible {
    package var partitions: [Int]
    package var description: String {
        "partition \(partitions.map(String.init).joined(separator: ", ")) is not this broker's (any more); nothing was stored"
    }
}

/// The leases a transaction checked without waiting (`ClusterStorage.fenceLeases`) were not all this broker's at
/// their epochs: the transaction was rolled back, nothing of it stored. The batch runs again with its leases read
/// (`PartitionOwnership.admit`), which drops those that moved.
package struct FenceRefused: Error, CustomStringConvertible {
    package init() {}

    package var description: String {
        "a partition's lease moved before this transaction checked it; nothing was stored"
    }
}
