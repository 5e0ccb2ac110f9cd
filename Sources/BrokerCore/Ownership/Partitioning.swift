public import HearthCore

/// How families map to partitions: FNV-1a 64 of the family id's UTF-8 bytes, modulo the partition count. The
/// function is fixed: brokers of one cluster must agree on it, and the count is recorded in the database.
public struct Partitioning: Sendable, Hashable {
    /// How many partitions (the `partitions` setting, the same on every broker of a cluster).
    public let count: Int

    public init(count: Int) {
        precondition(count > 0, "a cluster has at least one partition")
        self.count = count
    }

    /// The partition of `family`; a member of no family counts as the family with the empty id.
    public func partition(of family: FamilyID?) -> Int {
        Int(Self.fnv1a64(Array((family ?? "").utf8)) % UInt64(count))
    }

    /// FNV-1a, 64 bits.
    public static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
