/// Where a device reaches one broker: its two endpoints and its CURVE public key.
public struct BrokerAddress: Sendable, Hashable, CustomStringConvertible {
    /// The broker's ROUTER endpoint.
    public var ingress: String
    /// The broker's XPUB endpoint.
    public var egress: String
    /// The broker's CURVE public key (Z85).
    public var publicKey: String

    public init(ingress: String, egress: String, publicKey: String) {
        self.ingress = ingress
        self.egress = egress
        self.publicKey = publicKey
    }

    public var description: String { ingress }
}
