import BrokerCore
import BrokerPostgres
import BrokerSQLite
import Foundation
import HearthCore
import HearthService
import Logging

extension FamilyBrokerService {
    /// Opens the configured store: the SQLite file (checkpointed in the background), or the PostgreSQL database,
    /// whose unreachable server is a `ConfigurationError` (exit 78) once `storeConnectRetry` has passed, as is a
    /// PostgreSQL store in a build without the PostgreSQL trait (`PostgreSQLNotBuilt`).
    static func openStore(_ options: BrokerOptions, logger: Logger) async throws -> any BrokerStorage {
        switch options.store {
        case .sqlite:
            // Creating, migrating and syncing the file waits on the disk, and a previous broker's closing checkpoint
            // can hold it for up to `busyTimeout`: not on the cooperative pool, which an in-process fleet shares.
            let delay = options.commitDelay
            return try await BlockingWork.run {
                let store = try BrokerStore(path: options.databasePath, commitDelay: delay)
                try store.startBackgroundCheckpoints(logger: logger)
                return store
            }
        case .postgres(let url, let password):
            #if PostgreSQL
            let store = try await PostgresStore.connect(
                url, password: password, retryFor: options.storeConnectRetry,
                leaseDuration: options.cluster.leaseDuration, statementTimeout: options.storeStatementTimeout,
                logger: logger)
            try await store.prepareCluster(partitions: options.cluster.partitions)
            logger.info("store open", metadata: ["store": "\(url)", "schema": "\(PostgresStore.schemaVersion)"])
            return store
            #else
            // The settings refuse the URL already; options made in code (the test kit's) reach here.
            _ = password
            throw ConfigurationError(
                source: "store", key: url.description, reason: PostgreSQLNotBuilt(url: url).description)
            #endif
        }
    }
}

extension RunningBroker {
    /// The SQLite store's checkpoints (none on PostgreSQL).
    var checkpointCounts: WALCheckpointer.Counts { (store as? BrokerStore)?.checkpoints.counts ?? .init() }

    /// Every second: whether the store can store, for `/readyz` and `hearth_broker_store_unavailable` (commands
    /// meanwhile get `brokerUnavailable`). On PostgreSQL, whether its server answers (the store reconnects by
    /// itself); on SQLite, after a commit the disk refused (no space, an I/O error), whether a probe write commits.
    func storeProbes() async {
        var reported: String?
        while !Task.isCancelled {
            let problem = await storeProblem()
            health.store(problem: problem)
            metrics.storeUnavailable(problem != nil)
            if problem != reported {
                if let problem {
                    logger.error("store cannot store", metadata: ["store": "\(storeName)", "error": "\(problem)"])
                } else {
                    logger.notice("store can store again", metadata: ["store": "\(storeName)"])
                }
                reported = problem
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Why the store cannot store now, or nil.
    private func storeProblem() async -> String? {
        #if PostgreSQL
        if let postgres = store as? PostgresStore { return await postgres.unreachableReason() }
        #endif
        if let sqlite = store as? BrokerStore, sqlite.writeProblem != nil { return await sqlite.probeWrite() }
        return nil
    }

    private var storeName: String {
        #if PostgreSQL
        if let postgres = store as? PostgresStore { return "\(postgres.url)" }
        #endif
        return options.databasePath
    }
}
