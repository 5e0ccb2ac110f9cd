import Foundation

/// Where a device's family is served now: the broker that owns the family's partition (docs/PROTOCOL.md §6.2, 0x89).
///
/// A broker of a cluster sends it, in place of any reply, to a device whose family it does not own. The device
/// trusts it as far as it trusts the broker that sent it: the sender was authenticated by CURVE as a broker the
/// device was configured with, and brokers of one cluster learn each other's endpoints and keys from the database.
public struct BrokerRedirect: Sendable, Hashable {
    /// The family's partition (a stable hash of the family id, modulo the cluster's partition count).
    public var partition: UInt32
    /// The owner's lease epoch for that partition; a device ignores a redirect older than one it followed.
    public var epoch: UInt64
    /// The owner's ROUTER endpoint, as devices reach it (`tcp://host:port`).
    public var ingress: String
    /// The owner's XPUB endpoint, as devices reach it.
    public var egress: String
    /// The owner's CURVE public key, Z85 (40 characters).
    public var publicKey: String

    /// A redirect to the broker at `ingress`/`egress` with key `publicKey`.
    public init(partition: UInt32, epoch: UInt64, ingress: String, egress: String, publicKey: String) {
        self.partition = partition
        self.epoch = epoch
        self.ingress = ingress
        self.egress = egress
        self.publicKey = publicKey
    }

    /// The longest endpoint accepted, in bytes.
    public static let maxEndpointBytes = 255

    /// Why `endpoint` cannot be a broker's endpoint, or nil when it can (`tcp://` or `ipc://`, no control characters).
    public static func endpointProblem(_ endpoint: String) -> String? {
        guard endpoint.hasPrefix("tcp://") || endpoint.hasPrefix("ipc://") else {
            return "must start with tcp:// or ipc://"
        }
        guard endpoint.utf8.count > 6 else { return "names no address" }
        guard !endpoint.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return "must not contain control characters"
        }
        return nil
    }

    /// Whether `key` is a Z85 CURVE public key: 40 characters of the Z85 alphabet.
    public static func isZ85Key(_ key: String) -> Bool {
        let alphabet = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#")
        return key.count == 40 && key.allSatisfy { alphabet.contains($0) }
    }
}
