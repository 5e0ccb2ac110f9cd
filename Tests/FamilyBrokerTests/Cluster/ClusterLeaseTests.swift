import Foundation
import HearthCore
import HearthProtocol
import PostgresNIO
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Partitions, leases and fencing with two brokers' stores on one real PostgreSQL database (the brokers' engines and
/// lease keepers in this process; `ClusterBrokerTests` runs them as processes).
@Suite("Cluster: partitions, leases and fencing", .serialized, .tags(.postgres))
struct ClusterLeaseTests {
    /// One broker of the cluster: its own store (connections), engine and keeper.
    struct Broker {
        let store: PostgresStore
        let ownership: PartitionOwnership
        let sequences: SequenceBook
        let engine: BrokerEngine
        let keeper: LeaseKeeper

        init(
            _ name: String, url: PostgresURL, password: String, partitions: Int = 4,
            policy: BrokerPolicy = BrokerHarness.policy
        ) async throws {
            store = try await PostgresStore.opened(url: url, password: password, leaseDuration: .seconds(2))
            try await store.prepareCluster(partitions: partitions)
            ownership = PartitionOwnership(
                partitioning: Partitioning(count: partitions), brokerName: name, logger: quietLogger)
            sequences = SequenceBook(try await store.storedHeads())
            engine = BrokerEngine(
                storage: store, directory: DirectoryBox(try TestFamily.directory()), sequences: sequences,
                logger: quietLogger, policy: policy, clock: Date.init, deliver: { _ in },
                ownership: ownership)
            keeper = LeaseKeeper(
                session: store.leaseSession(), ownership: ownership, engine: engine,
                advertised: ("tcp://\(name):1", "tcp://\(name):2", "key-\(name)"), leaseDuration: .seconds(2),
                logger: quietLogger)
        }

        /// `emma` (family f1, partition 0 of 4) asks about `value`.
        func ask(_ value: String, id: UUID = UUID()) async -> CommandOutcome {
            let request = BrokerRequest(
                deviceID: "e1", memberID: "emma",
                command: .ask(app: "com.example.chat", question: question([value], id: id)))
            return await engine.process([request]).outcomes[0]
        }

        /// Runs SQL in a transaction of this broker's store.
        func sql(_ statement: String) async throws {
            try await store.transaction(
                { tx in _ = try (tx as! PostgresTransaction).execute(PostgresQuery(unsafeSQL: statement)) },
                committed: { _ in })
        }

        func questionExists(_ id: UUID) async throws -> Bool {
            try await store.reading { try $0.question(id) } != nil
        }
    }

    static func withDatabase(_ body: (PostgresURL, String) async throws -> Void) async throws {
        let (url, password, drop) = try await TestPostgres.database()
        do {
            try await body(url, password)
        } catch {
            await drop()
            throw error
        }
        await drop()
    }

    @Test func thePartitionFunctionIsFNV1a64OfTheFamilyIDModuloTheCount() {
        // FNV-1a 64's published values for "", "a" and "foobar".
        #expect(Partitioning.fnv1a64([]) == 0xcbf2_9ce4_8422_2325)
        #expect(Partitioning.fnv1a64(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(Partitioning.fnv1a64(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
        let partitioning = Partitioning(count: 64)
        #expect(partitioning.partition(of: "appleseed") == 50)
        #expect(partitioning.partition(of: "f1") == 56)
        #expect(partitioning.partition(of: "f2") == 17)
        #expect(partitioning.partition(of: nil) == 37)
        #expect(Partitioning(count: 4).partition(of: "f1") == 0)
    }

    @Test func aBrokerWhoseLeaseWasTakenCannotCommitAndTheNewOwnerContinuesTheSequence() async throws {
        try await Self.withDatabase { url, password in
            let a = try await Broker("a", url: url, password: password)
            let b = try await Broker("b", url: url, password: password)
            await a.keeper.round()
            #expect(a.ownership.served == [0: 1, 1: 1, 2: 1, 3: 1], "alone, a takes every partition at epoch 1")
            guard case .success = await a.ask("before") else {
                Issue.record("a serves f1: its ask commits")
                return
            }
            #expect(a.sequences.head(of: "emma") == 1)

            // a is paused (its keeper does not run) past its lease; b takes every partition.
            try await b.sql("UPDATE partition_lease SET expires_at = '-infinity'")
            try await b.sql("UPDATE cluster_broker SET heartbeat_at = '-infinity' WHERE name = 'a'")
            await b.keeper.round()
            #expect(b.ownership.served == [0: 2, 1: 2, 2: 2, 3: 2], "b takes them at the next epoch")
            #expect(b.sequences.head(of: "emma") == 1, "b read emma's head from the store as it took partition 0")

            // a still believes it serves f1: its write is refused in the database, and nothing of it is stored.
            #expect(a.ownership.serves("f1"))
            let late = UUID()
            guard case .failure(let refused) = await a.ask("late", id: late) else {
                Issue.record("a committed for a partition it lost")
                return
            }
            #expect(refused.code == .brokerUnavailable)
            #expect(try await !a.questionExists(late))
            #expect(!a.ownership.serves("f1"), "a dropped the partition the moment its check failed")

            // b goes on from emma's stored head: no sequence number taken twice.
            let next = UUID()
            guard case .success = await b.ask("after", id: next) else {
                Issue.record("b serves f1 now")
                return
            }
            #expect(try await b.questionExists(next))
            let events = try await b.store.reading { try $0.events(of: "emma", after: 0, limit: 10) }
            #expect(events.map(\.sequence) == [1, 2])
        }
    }

    @Test func aSweepExpiresOnlyTheQuestionsOfItsOwnPartitions() async throws {
        try await Self.withDatabase { url, password in
            let a = try await Broker("a", url: url, password: password)
            let b = try await Broker("b", url: url, password: password)
            await a.keeper.round()
            let expiring = UUID()
            let request = BrokerRequest(
                deviceID: "e1", memberID: "emma",
                command: .ask(
                    app: "com.example.chat",
                    question: question(["soon"], id: expiring, expirationDate: Date().addingTimeInterval(0.2))))
            _ = await a.engine.process([request])
            try await Task.sleep(for: .milliseconds(300))
            // b holds no partition: its sweep leaves a's question alone.
            #expect(try await b.engine.expireQuestions().events.isEmpty)
            #expect(try await b.store.reading { try $0.question(expiring) }?.resolution == nil)
            #expect(try await a.engine.expireQuestions().events.count > 0)
            #expect(try await a.store.reading { try $0.question(expiring) }?.resolution != nil)
        }
    }

    @Test func aJoiningBrokerGetsItsShareAndTheOtherReleasesItsSurplus() async throws {
        try await Self.withDatabase { url, password in
            let a = try await Broker("a", url: url, password: password)
            let b = try await Broker("b", url: url, password: password)
            await a.keeper.round()
            #expect(a.ownership.served.count == 4)
            await b.keeper.round()
            #expect(b.ownership.served.isEmpty, "nothing is free yet")
            await a.keeper.round()
            #expect(a.ownership.served.count == 2, "a releases what is over its share, ceil(4 / 2)")
            await b.keeper.round()
            #expect(b.ownership.served.count == 2)
            #expect(Set(a.ownership.served.keys).isDisjoint(with: b.ownership.served.keys))
            #expect(b.ownership.served.values.allSatisfy { $0 == 2 }, "taken over at the next epoch")
            // a redirect names b for b's partitions, from the registry.
            await a.keeper.round()
            let moved = try #require(b.ownership.served.keys.first)
            let families = (1...20).map { "f\($0)" }
            let family = try #require(families.first { Partitioning(count: 4).partition(of: $0) == moved })
            #expect(a.ownership.owner(of: family)?.name == "b")
            #expect(a.ownership.owner(of: family)?.ingress == "tcp://b:1")
        }
    }

    @Test func aBrokerWithAnotherPartitionCountIsRefusedNamingBoth() async throws {
        try await Self.withDatabase { url, password in
            _ = try await Broker("a", url: url, password: password, partitions: 4)
            let refused = await #expect(throws: ConfigurationError.self) {
                _ = try await Broker("b", url: url, password: password, partitions: 8)
            }
            #expect(refused?.description.contains("partitions = 8") == true, "\(String(describing: refused))")
            #expect(refused?.description.contains("records 4") == true, "\(String(describing: refused))")
        }
    }
}
