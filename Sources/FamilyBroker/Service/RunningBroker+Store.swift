import Foundation
import Logging

extension FamilyBrokerService {
    /// Opens the configured store: the SQLite file (checkpointed in the background), or the PostgreSQL database,
    /// whose unreachable server is a `ConfigurationError` (exit 78) once `storeConnectRetry` has passed.
    static func openStore(_ options: BrokerOptions, logger: Logger) async throws -> any BrokerStorage {
        switch options.store {
        case .sqlite:
            let store = try BrokerStore(path: options.databasePath)
            try store.startBackgroundCheckpoints(logger: logger)
            return store
        case .postgres(let url, let password):
            let store = try await PostgresStore.connect(
                url, password: password, retryFor: options.storeConnectRetry, logger: logger)
            logger.info("store open", metadata: ["store": "\(url)", "schema": "\(PostgresStore.schemaVersion)"])
            return store
        }
    }
}

extension RunningBroker {
    /// The SQLite store's checkpoints (none on PostgreSQL).
    var checkpointCounts: WALCheckpointer.Counts { (store as? BrokerStore)?.checkpoints.counts ?? .init() }

    /// Every second, on a PostgreSQL store: whether its server answers, for `/readyz` (commands meanwhile get
    /// `brokerUnavailable`; the store reconnects by itself when the server is back).
    func storeProbes() async {
        guard let postgres = store as? PostgresStore else { return }
        var reported: String?
        while !Task.isCancelled {
            let problem = await postgres.unreachableReason()
            health.store(problem: problem)
            if problem != reported {
                if let problem {
                    logger.error("store not reachable", metadata: ["store": "\(postgres.url)", "error": "\(problem)"])
                } else {
                    logger.notice("store reachable again", metadata: ["store": "\(postgres.url)"])
                }
                reported = problem
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}
