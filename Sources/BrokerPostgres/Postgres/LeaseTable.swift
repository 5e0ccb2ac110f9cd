#if PostgreSQL
import BrokerCore
import Foundation
import HearthCore
import Logging
import PostgresNIO

/// The cluster's tables as one broker's `LeaseKeeper` sees them, on its own connection: the brokers' registry and
/// the partitions' leases. Times are the server's (`clock_timestamp()`), so brokers' clocks need not agree.
struct LeaseTable {
    let connection: PostgresConnection
    let logger: Logger
    /// This broker's name.
    let broker: String
    let leaseSeconds: Double

    private func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        try connection.result(of: query, logger: logger).rows
    }

    /// Registers this broker or beats its heartbeat, with the endpoints and key a redirect names.
    func register(ingress: String, egress: String, publicKey: String) throws {
        _ = try rows(
            """
            INSERT INTO cluster_broker (name, ingress, egress, public_key, heartbeat_at, started_at)
            VALUES (\(broker), \(ingress), \(egress), \(publicKey), clock_timestamp(), clock_timestamp())
            ON CONFLICT (name) DO UPDATE SET ingress = EXCLUDED.ingress, egress = EXCLUDED.egress,
            public_key = EXCLUDED.public_key, heartbeat_at = EXCLUDED.heartbeat_at
            """)
    }

    /// Extends the leases of `held` that are still this broker's; returns them with their epochs.
    func renew(_ held: [Int]) throws -> [Int: UInt64] {
        guard !held.isEmpty else { return [:] }
        let ids = held.map { Int32($0) }
        return try leases(
            rows(
                """
                UPDATE partition_lease SET expires_at = clock_timestamp() + make_interval(secs => \(leaseSeconds))
                WHERE owner = \(broker) AND partition_id = ANY(\(ids)) RETURNING partition_id, epoch
                """))
    }

    /// The brokers whose heartbeat is younger than a lease.
    func liveBrokers() throws -> Set<String> {
        Set(
            try rows(
                """
                SELECT name FROM cluster_broker
                WHERE heartbeat_at > clock_timestamp() - make_interval(secs => \(leaseSeconds))
                """
            ).map { try $0.decode(String.self) })
    }

    /// How many unexpired leases each broker holds, and how many partitions nobody holds.
    func leaseCounts() throws -> (held: [String: Int], free: Int) {
        var held: [String: Int] = [:]
        var free = 0
        for row in try rows(
            """
            SELECT CASE WHEN owner IS NULL OR expires_at <= clock_timestamp() THEN NULL ELSE owner END AS holder,
            COUNT(*) FROM partition_lease GROUP BY holder
            """)
        {
            let (holder, count) = try row.decode((String?, Int64).self)
            if let holder { held[holder] = Int(count) } else { free = Int(count) }
        }
        return (held, free)
    }

    /// Takes up to `limit` partitions that nobody holds (never taken, expired or released, or left by this broker's
    /// previous run), each with its epoch raised by one; a lease locked by a transaction in flight is skipped.
    func acquire(upTo limit: Int, excluding held: [Int]) throws -> [Int: UInt64] {
        guard limit > 0 else { return [:] }
        let ids = held.map { Int32($0) }
        return try leases(
            rows(
                """
                UPDATE partition_lease SET owner = \(broker), epoch = epoch + 1,
                expires_at = clock_timestamp() + make_interval(secs => \(leaseSeconds))
                WHERE partition_id IN (
                    SELECT partition_id FROM partition_lease
                    WHERE (owner IS NULL OR owner = \(broker) OR expires_at <= clock_timestamp())
                    AND NOT (partition_id = ANY(\(ids)))
                    ORDER BY partition_id LIMIT \(Int64(limit)) FOR UPDATE SKIP LOCKED)
                RETURNING partition_id, epoch
                """))
    }

    /// Ends these leases of this broker (at their epochs) so that another broker takes them at once.
    func release(_ leases: [Int: UInt64]) throws {
        for (partition, epoch) in leases {
            _ = try rows(
                """
                UPDATE partition_lease SET expires_at = '-infinity'
                WHERE partition_id = \(Int32(partition)) AND owner = \(broker) AND epoch = \(Int64(epoch))
                """)
        }
    }

    /// Ends every lease of this broker and removes it from the registry (a clean shutdown).
    func resign() throws {
        _ = try rows("UPDATE partition_lease SET expires_at = '-infinity' WHERE owner = \(broker)")
        _ = try rows("DELETE FROM cluster_broker WHERE name = \(broker)")
    }

    /// The owner of every partition under an unexpired lease, as a redirect names it.
    func owners() throws -> [Int: PartitionOwner] {
        var owners: [Int: PartitionOwner] = [:]
        for row in try rows(
            """
            SELECT l.partition_id, l.owner, l.epoch, b.ingress, b.egress, b.public_key
            FROM partition_lease l JOIN cluster_broker b ON b.name = l.owner
            WHERE l.expires_at > clock_timestamp()
            """)
        {
            let (partition, owner, epoch, ingress, egress, key) = try row.decode(
                (Int32, String, Int64, String, String, String).self)
            owners[Int(partition)] = PartitionOwner(
                name: owner, epoch: UInt64(epoch), ingress: ingress, egress: egress, publicKey: key)
        }
        return owners
    }

    private func leases(_ rows: [PostgresRow]) throws -> [Int: UInt64] {
        var leases: [Int: UInt64] = [:]
        for row in rows {
            let (partition, epoch) = try row.decode((Int32, Int64).self)
            leases[Int(partition)] = UInt64(epoch)
        }
        return leases
    }
}
#endif
