import HearthCore
import HearthService

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

extension BrokerStorage {
    /// `heads()` on a thread of its own: a read that waits on the disk or, on PostgreSQL, on the server, which would
    /// otherwise hold one of the cooperative pool's threads that every other test shares.
    func storedHeads() async throws -> [MemberID: UInt64] {
        try await BlockingWork.run { try self.heads() }
    }
}
