import Dispatch
import Foundation
import HearthLab
import PostgresNIO
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// A PostgreSQL server gone silent without closing its connections (a network partition that drops packets, a frozen
/// host): the store sits behind the fleet's relay, which the test blackholes (connections stay open, no byte passes
/// either way). Every statement is bounded by the store's deadline: past it, the connection is closed, the statement
/// fails with `StoreUnavailable`, and once the relay is restored the next transaction commits on a new connection.
/// Without the deadline, each of these waits forever (the tests give up after `PostgresLostConnectionTests.bound`).
@Suite("PostgreSQL server gone silent", .serialized, .tags(.postgres))
struct PostgresSilentServerTests {
    /// Short for the tests; the broker's default is `PostgresStore.defaultStatementTimeout`.
    static let deadline = Duration.seconds(2)

    @Test func aStatementUnansweredInATransactionFailsAtItsDeadlineAndTheNextTransactionCommits() async throws {
        try await PostgresLostConnectionTests.withRelayedStore(statementTimeout: Self.deadline) { store, relay in
            let inside = TestSignal()
            let blackholed = DispatchSemaphore(value: 0)
            let attempt = Task {
                try await store.transaction(
                    { writer in
                        let tx = writer as! PostgresTransaction
                        try tx.execute("SELECT 1")
                        inside.raise()
                        blackholed.wait()
                        try tx.execute("SELECT 2")
                    }, committed: { _ in })
            }
            try await inside.wait()
            relay.blackhole()
            blackholed.signal()
            try await PostgresLostConnectionTests.expectStoreUnavailable(attempt)
            relay.restore()
            try await PostgresLostConnectionTests.expectCommits(store)
        }
    }

    @Test func statementsOnIdleConnectionsFailAtTheirDeadlineAndTheStoreRecovers() async throws {
        try await PostgresLostConnectionTests.withRelayedStore(statementTimeout: Self.deadline) { store, relay in
            // Both connections open, then idle when the server goes silent.
            try await PostgresLostConnectionTests.expectCommits(store)
            #expect(await store.unreachableReason() == nil)
            relay.blackhole()
            let attempt = Task {
                try await store.transaction(
                    { writer in _ = try (writer as! PostgresTransaction).execute("SELECT 1") }, committed: { _ in })
            }
            try await PostgresLostConnectionTests.expectStoreUnavailable(attempt)
            let probe = Task { await store.unreachableReason() }
            let probed = Task<Void, any Error> { _ = await probe.value }
            _ = try #require(await PostgresLostConnectionTests.outcome(of: probed), "the reader's probe still waits")
            #expect(await probe.value != nil, "the reader's probe reports the silent server")
            relay.restore()
            try await PostgresLostConnectionTests.expectCommits(store)
            #expect(await store.unreachableReason() == nil)
        }
    }

    /// The lease keeper's round waits on the silent server for its statement's deadline, longer here than a lease:
    /// the broker stops serving its partitions once a lease has passed since its last renewal all the same, and
    /// serves again once the server answers.
    @Test func theLeaseKeeperStopsServingWhenItsLeasesMayHaveExpiredWhileARoundWaits() async throws {
        let lease = Duration.seconds(2)
        try await PostgresLostConnectionTests.withRelayedStore(statementTimeout: .seconds(120)) { store, relay in
            try await store.prepareCluster(partitions: 4)
            let ownership = PartitionOwnership(
                partitioning: Partitioning(count: 4), brokerName: "a", logger: quietLogger)
            let engine = BrokerEngine(
                storage: store, directory: DirectoryBox(try TestFamily.directory()),
                sequences: SequenceBook(try await store.storedHeads()), logger: quietLogger,
                policy: BrokerHarness.policy,
                clock: Date.init, deliver: { _ in }, ownership: ownership)
            let keeper = LeaseKeeper(
                session: store.leaseSession(), ownership: ownership, engine: engine,
                advertised: ("tcp://a:1", "tcp://a:2", "key-a"), leaseDuration: lease, logger: quietLogger)
            await keeper.round()
            #expect(ownership.served.count == 4, "alone, it serves every partition")
            let running = Task { await keeper.run() }
            defer { running.cancel() }
            relay.blackhole()
            try await Self.eventually("stops serving while its round waits") { ownership.served.isEmpty }
            relay.restore()
            try await Self.eventually("serves again once the server answers") { ownership.served.count == 4 }
        }
    }

    /// Waits until `condition` holds, for at most `PostgresLostConnectionTests.bound`.
    static func eventually(_ what: String, _ condition: () -> Bool) async throws {
        let end = ContinuousClock.now + PostgresLostConnectionTests.bound
        while !condition(), ContinuousClock.now < end { try await Task.sleep(for: .milliseconds(50)) }
        try #require(condition(), "never \(what) within \(PostgresLostConnectionTests.bound)")
    }
}
