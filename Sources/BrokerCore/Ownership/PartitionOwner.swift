/// Another broker of the cluster as a redirect names it: the owner of a partition, from the brokers' registry.
public struct PartitionOwner: Sendable, Hashable {
    public var name: String
    /// The owner's lease epoch of the partition.
    public var epoch: UInt64
    /// The endpoints the owner advertises to devices, and its CURVE public key (Z85).
    public var ingress: String
    public var egress: String
    public var publicKey: String

    public init(name: String, epoch: UInt64, ingress: String, egress: String, publicKey: String) {
        self.name = name
        self.epoch = epoch
        self.ingress = ingress
        self.egress = egress
        self.publicKey = publicKey
    }
}
