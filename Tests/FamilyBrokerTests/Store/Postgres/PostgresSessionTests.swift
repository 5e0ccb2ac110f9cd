import NIOCore
import PostgresNIO
import Synchronization
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The session's one connection: it is replaced when lost, and never released while still open.
@Suite("PostgreSQL session", .tags(.postgres))
struct PostgresSessionTests {
    /// The store's writer lost its connection at COMMIT, reconnected to ask the server whether that commit happened,
    /// and the server could not say yet (`txid_status` "in progress": its backend had not noticed the lost client). The
    /// session then dropped the new, open connection along with the lost one, and postgres-nio's debug assertion
    /// ("PostgresConnection deinitialized before being closed") stopped the broker (seen when a paused broker resumed).
    @Test func aBodyThatReconnectsAndThenFailsKeepsTheNewConnection() async throws {
        let (url, password, drop) = try await TestPostgres.database()
        let session = PostgresSession(name: "test", url: url, password: password, logger: quietLogger)
        do {
            let reopened = Mutex<ObjectIdentifier?>(nil)
            await #expect(throws: StoreUnavailable.self) {
                try await session.run { lost in
                    try lost.close().wait()
                    let new = try session.connected()
                    reopened.withLock { $0 = ObjectIdentifier(new) }
                    throw StoreUnavailable(description: "the server cannot say yet whether the commit happened")
                }
            }
            let next = try await session.run { connection in
                (ObjectIdentifier(connection), try connection.result(of: "SELECT 1", logger: quietLogger).rows.count)
            }
            #expect(next.0 == reopened.withLock { $0 }, "the next call runs on the connection the body opened")
            #expect(next.1 == 1)
        } catch {
            session.close()
            await drop()
            throw error
        }
        session.close()
        await drop()
    }
}
