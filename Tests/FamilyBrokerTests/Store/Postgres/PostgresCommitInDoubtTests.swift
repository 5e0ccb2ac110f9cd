import Foundation
import HearthLab
import PostgresNIO
import Synchronization
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// A commit whose reply was lost when its server died, settled on the standby promoted in its place: that server may
/// never have seen the transaction and may have given its id to another one, so its `txid_status` says nothing about
/// it. The store must not run the commit's hook on its word; the commit is in doubt (`UnsettledCommit.inDoubt`).
///
/// Before the fix, the store asked the promoted standby: "transaction ID … is in the future" until the new server's
/// ids passed it, then the status of another transaction ("committed"), and the hook ran for a commit that was lost.
@Suite("PostgreSQL commit in doubt after a failover", .serialized)
struct PostgresCommitInDoubtTests {
    @Test(.tags(.postgres)) func aCommitLostWithItsServerIsInDoubtOnThePromotedStandby() async throws {
        try PostgresTier.require()
        let primary = try await PostgresServer.start()
        var servers = [primary]
        let relay = try await TCPRelay.start(upstreamPort: primary.port)
        do {
            let standby = try await primary.startStandby(synchronous: true)
            servers.append(standby)
            _ = try await primary.query("CREATE TABLE t (v int)")
            let url = PostgresURL(user: primary.user, host: "127.0.0.1", port: relay.port, database: primary.database)
            let store = try await PostgresStore.opened(url: url, password: primary.password)
            let inDoubt = Mutex(false)
            store.unsettled.inDoubt.withLock { $0 = { inDoubt.withLock { $0 = true } } }
            let hooked = Mutex(false)
            // The standby stops receiving: the commit waits for it, and the primary dies under it.
            try await primary.pauseWALSender()
            let attempt = Task {
                try await store.transaction(
                    { writer in _ = try (writer as! PostgresTransaction).execute("INSERT INTO t VALUES (1)") },
                    committed: { _ in hooked.withLock { $0 = true } })
            }
            try await Self.waitForCommitWaitingOnStandby(primary)
            try await primary.kill(everyProcess: true)
            try await PostgresLostConnectionTests.expectStoreUnavailable(attempt)
            try await standby.promote()
            // The new server's transaction ids run on from what it saw; the lost one is given again, or soon will be.
            _ = try await standby.query("INSERT INTO t VALUES (2); INSERT INTO t VALUES (3); INSERT INTO t VALUES (4)")
            await relay.retarget(to: standby.port)
            let settling = Task {
                try await store.transaction(
                    { writer in _ = try (writer as! PostgresTransaction).execute("SELECT 1") }, committed: { _ in })
            }
            try await PostgresLostConnectionTests.expectStoreUnavailable(settling)
            #expect(inDoubt.withLock { $0 }, "the commit sent to the old primary is in doubt")
            #expect(!hooked.withLock { $0 }, "the hook of a commit in doubt never runs")
            #expect(try await standby.query("SELECT v FROM t WHERE v = 1").isEmpty, "the lost commit is not there")
            try await PostgresLostConnectionTests.expectCommits(store)
        } catch {
            await relay.close()
            for server in servers { await server.remove() }
            throw error
        }
        await relay.close()
        for server in servers { await server.remove() }
    }

    /// Until a commit waits for the paused standby. A fixed pause was too short on a loaded machine: the primary died
    /// before the commit was sent, a transaction lost whole, which is no commit in doubt.
    static func waitForCommitWaitingOnStandby(_ primary: PostgresServer) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await primary.query("SELECT pid FROM pg_stat_activity WHERE wait_event = 'SyncRep'").isEmpty {
            try #require(ContinuousClock.now < deadline, "no commit waited for the standby within 60 s")
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
