#if PostgreSQL
import Foundation
import HearthCore
import Logging
import PostgresNIO

extension PostgresStore {
    /// The `NOTIFY` channel on which a broker tells the others that the directory changed (payload: its name).
    static let directoryChannel = "hearth_directory"

    /// The key of the advisory lock under which the cluster's partitions are recorded.
    static let clusterLock: Int64 = 0x6865_6172_7468_0002

    /// The cluster's tables: the brokers' registry, one lease per partition with its fencing epoch, and the
    /// settings every broker must agree on (the partition count).
    static let clusterSchema = """
        CREATE TABLE cluster_setting (name text PRIMARY KEY, value bigint NOT NULL);
        CREATE TABLE cluster_broker (
            name text PRIMARY KEY,
            ingress text NOT NULL,
            egress text NOT NULL,
            public_key text NOT NULL,
            heartbeat_at timestamptz NOT NULL,
            started_at timestamptz NOT NULL
        );
        CREATE TABLE partition_lease (
            partition_id integer PRIMARY KEY,
            owner text,
            epoch bigint NOT NULL DEFAULT 0,
            expires_at timestamptz NOT NULL DEFAULT '-infinity'
        )
        """

    /// Records the partition count on first use and makes a lease row per partition; throws a
    /// `ConfigurationError` (the broker exits 78) when the database records another count.
    package func prepareCluster(partitions: Int) async throws {
        let url = self.url
        let logger = self.logger
        try await writer.run { connection in
            func run(_ query: PostgresQuery) throws -> [PostgresRow] {
                try connection.result(of: query, logger: logger).rows
            }
            _ = try run("BEGIN")
            do {
                _ = try run("SELECT pg_advisory_xact_lock(\(Self.clusterLock))")
                _ = try run(
                    """
                    INSERT INTO cluster_setting (name, value) VALUES ('partitions', \(Int64(partitions)))
                    ON CONFLICT DO NOTHING
                    """)
                let recorded =
                    try run("SELECT value FROM cluster_setting WHERE name = 'partitions'").first?.decode(Int64.self)
                guard recorded == Int64(partitions) else {
                    throw ConfigurationError(
                        source: "partitions", key: url.description,
                        reason: """
                            this broker has partitions = \(partitions) but the database records \
                            \(recorded.map(String.init) ?? "none"): every broker of a cluster must use the same count
                            """)
                }
                _ = try run(
                    """
                    INSERT INTO partition_lease (partition_id)
                    SELECT g FROM generate_series(0, \(Int32(partitions - 1))) AS g ON CONFLICT DO NOTHING
                    """)
                _ = try run("COMMIT")
            } catch {
                _ = try? run("ROLLBACK")
                throw error
            }
        }
    }

    /// A connection of its own for the broker's `LeaseKeeper` (on a Dispatch queue of its own).
    func leaseSession() -> PostgresSession {
        PostgresSession(
            name: "leases", url: url, password: password, statementTimeout: statementTimeout, logger: logger)
    }
}
#endif
