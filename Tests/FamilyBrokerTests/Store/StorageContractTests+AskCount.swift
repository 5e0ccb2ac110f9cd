import Foundation
import HearthCore
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The ask count as the writer sees it: SQLite's writer counts from memory it keeps (`AskWindows`), which must be
/// the stored rows exactly, whatever rolled back, restarted or wrote beside it.
extension StorageContractTests {
    func asked(_ value: String, at date: Date) -> AskedQuestion {
        emmasQuestion(value, at: date)
    }

    /// The count in a write transaction of its own.
    func writerCount(_ store: any BrokerStorage, since: Date, upTo limit: Int = 100) async throws -> Int {
        try await store.transaction(
            { (tx) throws in try tx.askCount(child: "emma", since: since, upTo: limit) }, committed: { _ in })
    }

    @Test(arguments: StorageBackend.all)
    func theWritersAskCountIsUndoneWithItsSavepointAndTransaction(_ backend: StorageBackend) async throws {
        try await with(backend) { (store, _) async throws in
            let since = Self.now.addingTimeInterval(-60)
            try await store.transaction(
                { (tx) throws in
                    #expect(try tx.askCount(child: "emma", since: since, upTo: 100) == 0)
                    try tx.savepoint { try tx.insert(asked("a", at: Self.now), resolution: nil) }
                    #expect(try tx.askCount(child: "emma", since: since, upTo: 100) == 1)
                    _ = try? tx.savepoint {
                        try tx.insert(asked("b", at: Self.now), resolution: nil)
                        #expect(try tx.askCount(child: "emma", since: since, upTo: 100) == 2)
                        throw ContractError()
                    }
                    #expect(try tx.askCount(child: "emma", since: since, upTo: 100) == 1, "a savepoint rolled back")
                }, committed: { _ in })
            await #expect(throws: ContractError.self) {
                try await store.transaction(
                    { (tx) throws in
                        try tx.insert(asked("c", at: Self.now), resolution: nil)
                        #expect(try tx.askCount(child: "emma", since: since, upTo: 100) == 2)
                        throw ContractError()
                    }, committed: { _ in })
            }
            #expect(try await writerCount(store, since: since) == 1, "a failed transaction counts for nothing")
            #expect(try await writerCount(store, since: since, upTo: 0) == 0)
            #expect(try await writerCount(store, since: Self.now.addingTimeInterval(1)) == 0)
            #expect(try await store.reading { try $0.askCount(child: "emma", since: since, upTo: 100) } == 1)
        }
    }

    /// A transaction that wrote before its first count (which reads its own writes) and then fails.
    @Test(arguments: StorageBackend.all)
    func aFailedTransactionThatCountedFirstLeavesNoAskBehind(_ backend: StorageBackend) async throws {
        try await with(backend) { (store, _) async throws in
            let since = Self.now.addingTimeInterval(-60)
            await #expect(throws: ContractError.self) {
                try await store.transaction(
                    { (tx) throws in
                        try tx.insert(asked("a", at: Self.now), resolution: nil)
                        _ = try? tx.savepoint {
                            try tx.insert(asked("b", at: Self.now), resolution: nil)
                            #expect(try tx.askCount(child: "emma", since: since, upTo: 100) == 2)
                            throw ContractError()
                        }
                        #expect(try tx.askCount(child: "emma", since: since, upTo: 100) == 1)
                        throw ContractError()
                    }, committed: { _ in })
            }
            #expect(try await writerCount(store, since: since) == 0)
        }
    }

    /// Asks stored before a restart, by another connection, or older than an earlier count asked about (the clock
    /// went back) are counted.
    @Test(arguments: StorageBackend.all)
    func theWritersAskCountSurvivesRestartsAndOtherWriters(_ backend: StorageBackend) async throws {
        try await with(backend) { (store, reopen) async throws in
            let hourAgo = Self.now.addingTimeInterval(-3600)
            try await store.transaction(
                { (tx) throws in
                    try tx.insert(asked("old", at: hourAgo), resolution: nil)
                    try tx.insert(asked("new", at: Self.now), resolution: nil)
                }, committed: { _ in })
            #expect(try await writerCount(store, since: Self.now) == 1)
            #expect(try await writerCount(store, since: hourAgo) == 2, "a count from further back")
            let restarted = try await reopen()
            #expect(try await writerCount(restarted, since: hourAgo) == 2)
            #expect(try await writerCount(restarted, since: Self.now) == 1)
            try await restarted.transaction(
                { (tx) throws in try tx.insert(asked("other", at: Self.now), resolution: nil) }, committed: { _ in })
            #expect(try await writerCount(store, since: Self.now) == 2, "another writer's ask")
            #expect(try await writerCount(restarted, since: Self.now) == 2)
        }
    }

    /// Rows written outside the engine's transactions (a benchmark's history) are counted by the next one.
    @Test func theWritersAskCountSeesRowsWrittenBesideIt() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let now = Date()
        #expect(try await writerCount(store, since: now.addingTimeInterval(-60)) == 0)
        _ = try await store.appendHistory(families: 1, questionsPerChild: 3, at: now)
        let count = try await store.transaction(
            { (tx) throws in try tx.askCount(child: "c0", since: now.addingTimeInterval(-60), upTo: 100) },
            committed: { _ in })
        #expect(count == 3)
    }

    /// The memory is the point: it is loaded once, not per transaction (the background checkpointer's connection
    /// commits nothing, so `PRAGMA data_version` stays).
    @Test func theWriterLoadsItsAskTimesOnce() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        try store.startBackgroundCheckpoints(logger: quietLogger)
        let now = Date()
        for n in 0..<200 {
            let count = try await store.transaction(
                { (tx) throws in
                    for k in 0..<20 { try tx.insert(asked("h\(n)-\(k)", at: now), resolution: nil) }
                    return try tx.askCount(child: "emma", since: now.addingTimeInterval(-60), upTo: 100_000)
                }, committed: { _ in })
            #expect(count == 20 * (n + 1))
        }
        #expect(store.checkpoints.counts.background > 0, "the checkpointer ran meanwhile")
        #expect(store.writerStatements.withLock { $0.askWindows.loads } == 1)
    }
}
