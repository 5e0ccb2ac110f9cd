import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// An owner's transaction checks its partitions' leases without waiting for the check
/// (`PartitionOwnership.admitAhead`): the check travels with the transaction's statements, and a lease that moved
/// fails the transaction at its commit, nothing of it stored, and the batch runs again with its leases read.
@Suite("Cluster: leases checked without waiting", .serialized, .tags(.postgres))
struct FenceAheadTests {
    typealias Broker = ClusterLeaseTests.Broker

    @Test func aServedPartitionsLeasesAreCheckedWithoutAWait() async throws {
        try await ClusterLeaseTests.withDatabase { url, password in
            let a = try await Broker("a", url: url, password: password)
            await a.keeper.round()
            let ownership = a.ownership
            let (admitted, waits) = try await a.store.transaction(
                { store in
                    let admitted = try ownership.admitAhead([0, 2], in: store)
                    return (admitted, (store as! PostgresTransaction).held.waits)
                }, committed: { _ in })
            #expect(admitted == [0, 2])
            #expect(waits == 0, "the leases' check was sent, not waited for")
            // A partition not served is read as before: nothing to check ahead.
            a.ownership.drop([3])
            let read = try await a.store.transaction(
                { store in
                    let admitted = try ownership.admitAhead([0, 3], in: store)
                    return (admitted, (store as! PostgresTransaction).held.waits)
                }, committed: { _ in })
            #expect(read.0 == [0])
            #expect(read.1 == 1)
        }
    }

    @Test func aLeaseThatMovedFailsTheCommitAndTheBatchIsAnsweredFromItsLeasesRead() async throws {
        try await ClusterLeaseTests.withDatabase { url, password in
            let a = try await Broker("a", url: url, password: password)
            let b = try await Broker("b", url: url, password: password)
            await a.keeper.round()
            // a is paused past its lease; b takes every partition, while a still believes it serves them.
            try await b.sql("UPDATE partition_lease SET expires_at = '-infinity'")
            try await b.sql("UPDATE cluster_broker SET heartbeat_at = '-infinity' WHERE name = 'a'")
            await b.keeper.round()
            #expect(a.ownership.serves("f1"))

            let ownership = a.ownership
            await #expect(throws: FenceRefused.self) {
                try await a.store.transaction(
                    { store in _ = try ownership.admitAhead([0], in: store) }, committed: { _ in })
            }
            #expect(a.ownership.serves("f1"), "the store's refusal alone drops nothing: the batch run again does")

            let late = UUID()
            guard case .failure(let refused) = await a.ask("late", id: late) else {
                Issue.record("a committed for a partition it lost")
                return
            }
            #expect(refused.code == .brokerUnavailable)
            #expect(try await !a.questionExists(late))
            #expect(!a.ownership.serves("f1"), "the batch run again read the leases and dropped the partition")
        }
    }
}
