import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// What a broker stored is there for the next one that opens the same file.
@Suite("BrokerStore durability")
struct BrokerStoreDurabilityTests {
    /// Every commit is synced (`synchronous=FULL` on the writer): GRDB's pool would leave it at NORMAL, where a commit
    /// acknowledged just before a power loss can be lost.
    @Test func theWriterSyncsAtEveryCommit() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.url.path + "/broker.sqlite")
        let mode = try await store.pool.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") }
        #expect(mode == 2, "PRAGMA synchronous on the writer: 2 is FULL, 1 NORMAL")
        #expect(try await store.pool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test func headsQuestionsAndKnownHandlesSurviveReopening() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let clock = TestClock()

        let approved = question(["friend"])
        let pending = question(["stranger"], expirationDate: clock.now + 3600)
        let first = try await BrokerHarness(temp: temp, clock: clock)
        let pendingAsked = try #require(try await first.ask(pending).reply.accepted?.asked)
        _ = try await first.ask(approved)
        let resolution = try #require(
            try await first.answer(approved.id, "approve", from: "alice").reply.answerResolution)
        _ = try await first.ask(question(["n"]), from: "nora")
        let before = try await first.fingerprint()
        #expect(before.heads == ["emma": 4, "alice": 3, "bob": 3, "nora": 1])

        // A second store on the same path, as a restarted broker would open it.
        let second = try await BrokerHarness(temp: temp, clock: clock)
        #expect(try await second.storage.storedHeads() == before.heads)
        #expect(second.sequences.snapshot() == before.heads)
        #expect(try await second.fingerprint() == before)
        #expect(try await second.storedQuestion(pending.id)?.asked == pendingAsked)
        #expect(try await second.storedQuestion(pending.id)?.resolution == nil)
        #expect(try await second.storedQuestion(approved.id)?.resolution == resolution)
        #expect(
            try await second.send(.knownHandles([handle("friend"), handle("stranger")]), from: "emma").reply
                == .knownHandlesResult([handle("friend")]))
        #expect(
            try await second.send(.hello(minVersion: 1, maxVersion: 1), from: "emma").reply
                == .welcome(version: 1, familyID: "f1", memberID: "emma", deviceID: "e1", role: .child, head: 4))

        // Numbering continues where it left off, and the reopened broker knows the pending question.
        clock.advance(by: 10)
        let answered = try await second.answer(pending.id, "decline", from: "bob")
        #expect(answered.reply.answerResolution?.answeredBy == "bob")
        #expect(answered.events.of("emma").map(\.sequence) == [5])
        #expect(answered.events.of("alice").map(\.sequence) == [4])
        #expect(answered.events.of("bob").map(\.sequence) == [4])
        #expect(try await second.answer(approved.id, "approve", from: "alice").reply == .answerAccepted(resolution))
        #expect(try await second.ask(approved).reply.accepted?.resolution == resolution)
        let known = try await second.ask(question(["friend"]))
        #expect(known.reply.accepted?.resolution?.reason == .alreadyKnown)
        #expect(known.events.map(\.sequence) == [6])

        let third = try await BrokerHarness(temp: temp, clock: clock)
        #expect(try await third.storage.storedHeads() == ["emma": 6, "alice": 4, "bob": 4, "nora": 1])
        let log = try #require(try await third.logs()["emma"])
        #expect(log.head == 6)
        #expect(log.events.map(\.sequence) == Array(1...6))
    }

    @Test func aNewStoreStartsEmpty() async throws {
        try await BrokerHarness.with { broker throws in
            #expect(try await broker.storage.storedHeads().isEmpty)
            #expect(FileManager.default.fileExists(atPath: broker.temp.databasePath))
            #expect(try await broker.questionCount() == 0)
        }
    }

    @Test func reopeningMigratesOnceAndKeepsTheData() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        for round in 1...3 {
            let broker = try await BrokerHarness(temp: temp)
            #expect(try await broker.storage.storedHeads()["nora"] ?? 0 == UInt64(round - 1))
            let outcome = try await broker.ask(question(["r\(round)"]), from: "nora")
            #expect(outcome.events.map(\.sequence) == [UInt64(round)])
        }
    }

    /// A restarted broker may open its file while the previous one's last connection still holds the lock for its
    /// closing checkpoint: opening waits for the lock instead of failing with "database is locked".
    @Test func openingWaitsForAnotherConnectionsLock() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        _ = try await BrokerHarness(temp: temp)
        let holder = try DatabaseQueue(path: temp.databasePath)
        try holder.inDatabase { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "CREATE TABLE held (x)")  // a write takes the exclusive lock, kept until close
        }
        // A thread of its own: the release must come while the store's initializer waits, whatever the pool does.
        let released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.3)
            try? holder.close()
            released.signal()
        }
        let reopened = try await BrokerStore.opened(at: temp.databasePath)
        released.wait()
        #expect(try await reopened.storedHeads().isEmpty)
    }
}
