import Dispatch
import Foundation
import HearthLab
import PostgresNIO
import Synchronization
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// A connection to PostgreSQL lost in the middle of a transaction (the network dropped it, or the server ended the
/// session) fails that transaction with `StoreUnavailable`, and the next one runs on a new connection. The store sits
/// behind the fleet's relay (`TCPRelay`), which the test cuts while the writer is inside a transaction.
///
/// Before the fix, the writer sent its next statement (or the ROLLBACK after the failed one) on the closed connection;
/// postgres-nio dropped it without completing its future and the writer's queue blocked forever: a broker of a cluster
/// kept renewing its leases and never answered a command again.
@Suite("PostgreSQL connection lost in a transaction", .serialized, .tags(.postgres))
struct PostgresLostConnectionTests {
    /// Long enough for any statement on a loaded machine, far shorter than forever.
    static let bound = Duration.seconds(30)

    @Test func aConnectionLostBetweenTwoStatementsFailsTheTransactionAndTheNextOneRuns() async throws {
        try await Self.withRelayedStore { store, relay in
            let inside = TestSignal()
            let cut = DispatchSemaphore(value: 0)
            let attempt = Task {
                try await store.transaction(
                    { writer in
                        let tx = writer as! PostgresTransaction
                        try tx.execute("SELECT 1")
                        inside.raise()
                        cut.wait()
                        // The client has seen the connection close and torn its pipeline down.
                        for _ in 0..<1000 where !tx.connection.isClosed { Thread.sleep(forTimeInterval: 0.01) }
                        Thread.sleep(forTimeInterval: 0.2)
                        try tx.execute("SELECT 2")
                    }, committed: { _ in })
            }
            try await inside.wait()
            await relay.cut()
            cut.signal()
            try await Self.expectStoreUnavailable(attempt)
            relay.restore()
            try await Self.expectCommits(store)
        }
    }

    /// As above, with a prepared statement (`HotStatements`) as the one sent on the lost connection: it fails at once,
    /// not at the statement deadline (longer here than the test waits), and the next connection prepares it again.
    @Test func aPreparedStatementSentOnALostConnectionFailsTheTransactionAndTheNextOneRuns() async throws {
        try await Self.withRelayedStore(statementTimeout: .seconds(120)) { store, relay in
            let inside = TestSignal()
            let cut = DispatchSemaphore(value: 0)
            let attempt = Task {
                try await store.transaction(
                    { writer in
                        let tx = writer as! PostgresTransaction
                        try tx.execute("SELECT 1")
                        inside.raise()
                        cut.wait()
                        for _ in 0..<1000 where !tx.connection.isClosed { Thread.sleep(forTimeInterval: 0.01) }
                        Thread.sleep(forTimeInterval: 0.2)
                        _ = try tx.question(UUID())
                    }, committed: { _ in })
            }
            try await inside.wait()
            await relay.cut()
            cut.signal()
            try await Self.expectStoreUnavailable(attempt)
            relay.restore()
            try await Self.expectCommits(store)
            let reopened = try store.writer.runBlocking { connection in
                try connection.result(of: "SELECT name FROM pg_prepared_statements", logger: quietLogger).rows
            }
            #expect(reopened.count >= HotStatements.all.count)
        }
    }

    @Test func aConnectionLostUnderARunningStatementFailsTheTransactionAndTheNextOneRuns() async throws {
        try await Self.withRelayedStore { store, relay in
            let inside = TestSignal()
            let attempt = Task {
                try await store.transaction(
                    { writer in
                        let tx = writer as! PostgresTransaction
                        try tx.execute("SELECT 1")
                        inside.raise()
                        do {
                            try tx.execute("SELECT pg_sleep(20)")
                        } catch {
                            // The store's ROLLBACK comes after the client tore the closed connection down.
                            Thread.sleep(forTimeInterval: 0.2)
                            throw error
                        }
                    }, committed: { _ in })
            }
            try await inside.wait()
            try await Task.sleep(for: .milliseconds(300))
            await relay.cut()
            try await Self.expectStoreUnavailable(attempt)
            relay.restore()
            try await Self.expectCommits(store)
        }
    }

    /// A broker paused mid-transaction past its lease: the server ends the idle transaction's session, so its COMMIT
    /// finds the connection gone. The store asks the server on a new connection whether it committed (it did not) and
    /// fails the transaction; the new connection serves the next one. Before the fix, the session released that new
    /// connection still open, and postgres-nio's debug assertion stopped the broker.
    @Test func aTransactionLeftIdlePastTheLeaseFailsAtCommitAndTheNextOneRuns() async throws {
        let (url, password, drop) = try await TestPostgres.database()
        do {
            let store = try await PostgresStore.opened(url: url, password: password, leaseDuration: .seconds(1))
            let hooked = Mutex(false)
            let attempt = Task {
                try await store.transaction(
                    { writer in
                        try (writer as! PostgresTransaction).execute("SELECT 1")
                        // The broker's process stopped (SIGSTOP) here, longer than idle_in_transaction_session_timeout.
                        Thread.sleep(forTimeInterval: 2.5)
                    }, committed: { _ in hooked.withLock { $0 = true } })
            }
            try await Self.expectStoreUnavailable(attempt)
            #expect(!hooked.withLock { $0 }, "a transaction the server ended is not reported committed")
            try await Self.expectCommits(store)
        } catch {
            await drop()
            throw error
        }
        await drop()
    }

    // MARK: helpers

    /// A store on a fresh database, reached through a relay the test can cut.
    static func withRelayedStore(
        statementTimeout: Duration = PostgresStore.defaultStatementTimeout,
        _ body: (PostgresStore, TCPRelay) async throws -> Void
    ) async throws {
        let (url, password, drop) = try await TestPostgres.database()
        let relay = try await TCPRelay.start(upstreamPort: url.port)
        do {
            var relayed = url
            relayed.port = relay.port
            let store = try PostgresStore(
                url: relayed, password: password, statementTimeout: statementTimeout, logger: quietLogger)
            try await body(store, relay)
        } catch {
            await relay.close()
            await drop()
            throw error
        }
        await relay.close()
        await drop()
    }

    /// The transaction ended with `StoreUnavailable` within `bound` (it did not wait forever on a lost connection).
    static func expectStoreUnavailable(_ attempt: Task<Void, any Error>) async throws {
        let result = try #require(await outcome(of: attempt), "the transaction still waits after \(bound)")
        #expect(throws: StoreUnavailable.self) { try result.get() }
    }

    /// A new transaction commits within `bound`, on a new connection.
    static func expectCommits(_ store: PostgresStore) async throws {
        let next = Task {
            try await store.transaction(
                { writer in _ = try (writer as! PostgresTransaction).execute("SELECT 3") }, committed: { _ in })
        }
        let result = try #require(await outcome(of: next), "the next transaction still waits after \(bound)")
        try result.get()
    }

    /// How `task` ended, or nil when it has not within `bound` (it is left running: it cannot be cancelled while it
    /// blocks the store's queue).
    static func outcome(of task: Task<Void, any Error>) async -> Result<Void, any Error>? {
        let first = FirstOf<Result<Void, any Error>?>()
        return await withCheckedContinuation { continuation in
            first.set(continuation)
            Task { first.resume(with: await task.result) }
            Task {
                try? await Task.sleep(for: bound)
                first.resume(with: nil)
            }
        }
    }
}

/// Resumes a continuation with whichever result comes first.
private final class FirstOf<T: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<T, Never>?>(nil)

    func set(_ continuation: CheckedContinuation<T, Never>) { self.continuation.withLock { $0 = continuation } }

    func resume(with value: T) { continuation.withLock { $0.take() }?.resume(returning: value) }
}

/// Raised once from any thread; awaited by the test.
final class TestSignal: Sendable {
    private let raised = Mutex(false)

    func raise() { raised.withLock { $0 = true } }

    func wait() async throws {
        for _ in 0..<3000 where !raised.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        try #require(raised.withLock { $0 }, "the transaction never started")
    }
}
