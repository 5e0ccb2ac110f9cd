import HearthService

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

extension BrokerStore {
    /// Opens (creating and migrating) the store at `path` on a thread of its own: the file's creation, migrations and
    /// syncs would otherwise hold one of the cooperative pool's threads (two on CI) that every other test shares.
    static func opened(
        at path: String, commitDelay: (@Sendable () -> Duration)? = nil
    ) async throws -> BrokerStore {
        try await BlockingWork.run { try BrokerStore(path: path, commitDelay: commitDelay) }
    }
}
