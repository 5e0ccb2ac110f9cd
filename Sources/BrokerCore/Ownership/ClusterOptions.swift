import Foundation

/// How a broker on the PostgreSQL store takes part in its cluster (docs/CONFIGURATION.md, docs/SCALING.md). A broker
/// on SQLite has no cluster: it owns every family.
public struct ClusterOptions: Sendable, Equatable {
    /// Partitions of the families; the same on every broker of a cluster (recorded in the database).
    public var partitions: Int = 64
    /// This broker's name in the cluster; nil: the host name and the bound ingress port (`host:port`).
    public var brokerName: String?
    /// The endpoints devices use to reach this broker, as named in redirects; nil: the bound ones.
    public var advertiseIngress: String?
    public var advertiseEgress: String?
    /// How long a partition's lease lasts without renewal; renewed every third of it.
    public var leaseDuration: Duration = .seconds(10)

    public init() {}

    /// The name this broker registers under, once its ingress is bound.
    package func name(boundIngress: String) -> String {
        if let brokerName { return brokerName }
        let port = boundIngress.split(separator: ":").last.map(String.init) ?? "0"
        return "\(ProcessInfo.processInfo.hostName):\(port)"
    }
}
