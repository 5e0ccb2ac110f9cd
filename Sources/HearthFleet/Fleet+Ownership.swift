import BrokerCore
import FamilyBroker
import Foundation
public import HearthCore
import Synchronization

/// Which broker of several owns what, from the cluster's lease table in the fleet's PostgreSQL server.
extension Fleet {
    /// The partition count the brokers were given (`--partitions` in the broker arguments; else the default, 64).
    public var partitions: Int {
        let arguments = clusterTemplate.withLock { $0?.arguments } ?? []
        let given = arguments.indices.dropLast().last { arguments[$0] == "--partitions" }.map { arguments[$0 + 1] }
        return given.flatMap(Int.init) ?? 64
    }

    /// A family's partition, as every broker computes it.
    public func partition(of family: FamilyID) -> Int {
        Partitioning(count: partitions).partition(of: family)
    }

    /// Each partition's owner now: the broker holding its unexpired lease.
    public func leaseOwners() async throws -> [Int: FleetBroker] {
        guard let server = postgresServer else { throw FleetError("a fleet of several brokers has the leases") }
        let rows = try await server.query(
            "SELECT partition_id, owner FROM partition_lease WHERE owner IS NOT NULL AND expires_at > clock_timestamp()"
        )
        let byName = Dictionary(uniqueKeysWithValues: brokers.map { ($0.name, $0) })
        var owners: [Int: FleetBroker] = [:]
        for row in rows where row.count == 2 {
            if let partition = Int(row[0]), let broker = byName[row[1]] { owners[partition] = broker }
        }
        return owners
    }

    /// The broker that owns a family now, if any.
    public func owner(of family: FamilyID) async throws -> FleetBroker? {
        try await leaseOwners()[partition(of: family)]
    }
}
