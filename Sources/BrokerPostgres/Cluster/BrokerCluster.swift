#if PostgreSQL
package import BrokerCore
import Foundation
package import Logging
import Synchronization

/// A broker's part in its cluster (on the PostgreSQL store): the partitions it serves, the task keeping its leases,
/// and the listener that learns the directory changes other brokers make.
package struct BrokerCluster: Sendable {
    let ownership: PartitionOwnership
    package let keeper: LeaseKeeper
    package let listener: DirectoryListener

    /// Joins the cluster of `store`'s database: the engine's writes are fenced by `ownership`, devices are told
    /// `advertised` in redirects, a revoked key is cut off by `cutOff`.
    package init(
        store: PostgresStore, ownership: PartitionOwnership, engine: BrokerEngine, options: ClusterOptions,
        advertised: (ingress: String, egress: String, publicKey: String), logger: Logger,
        cutOff: @escaping @Sendable (Set<String>) async -> Void
    ) {
        self.ownership = ownership
        // A commit in doubt after a failover may have left this broker's caches (heads, questions) ahead of the
        // database: serve nothing until the lease keeper takes the partitions again, reloading them.
        store.unsettled.inDoubt.withLock { inDoubt in
            inDoubt = {
                let dropped = ownership.drop(ownership.served.keys)
                logger.error(
                    "a commit is in doubt after the database was replaced: serving nothing until taken again",
                    metadata: ["partitions": "\(dropped.sorted())"])
            }
        }
        keeper = LeaseKeeper(
            session: store.leaseSession(), ownership: ownership, engine: engine, advertised: advertised,
            leaseDuration: options.leaseDuration, logger: logger)
        listener = DirectoryListener(store: store, brokerName: ownership.brokerName) {
            do {
                let removed = try await engine.reloadDirectory()
                if !removed.isEmpty { await cutOff(removed) }
            } catch {
                logger.error("could not read the directory again", metadata: ["error": "\(error)"])
            }
        }
    }
}
#endif
