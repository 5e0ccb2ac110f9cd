import HearthService

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

extension PostgresStore {
    /// Connects and migrates as `init` does, on a thread of its own: the connection and migrations wait on the
    /// server, which would otherwise hold one of the cooperative pool's threads that every other test shares.
    static func opened(url: PostgresURL, password: String, leaseDuration: Duration? = nil) async throws -> PostgresStore
    {
        try await BlockingWork.run {
            try PostgresStore(url: url, password: password, leaseDuration: leaseDuration, logger: quietLogger)
        }
    }
}
