import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Synchronization
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// A batch of devices' commands runs without a savepoint per command; one that fails after a change has the batch run
/// again with savepoints, so that it alone is undone (docs/decisions/0013-batches-without-savepoints.md).
@Suite struct UnguardedBatchTests {
    static func askFrame(_ question: Question, requestID: UInt64) -> [UInt8] {
        MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: question), requestID: requestID)
    }

    /// Questions with a reminder to send: an ask stores its reminder after its question, before its events.
    static func reminders(_ broker: BrokerHarness) async throws -> Int {
        try await broker.store.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM question WHERE remind_at IS NOT NULL") ?? 0
        }
    }

    @Test func aCommandThatFailsAfterAChangeIsUndoneAloneAndItsNeighboursCommit() async throws {
        let broker = try await BrokerHarness()
        defer { broker.temp.remove() }
        // Yuri's events cannot be stored, so his ask fails after it stored its reminder and its question.
        try await broker.store.write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER refuse_yuri BEFORE INSERT ON event_log WHEN NEW.member_id = 'yuri'
                    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                    """)
        }
        let first = question(["h1"])
        let refused = question(["y1"])
        let last = question(["h2"])
        let (replies, events) = try await broker.batch([
            ("e1", Self.askFrame(first, requestID: 1)), ("y1", Self.askFrame(refused, requestID: 2)),
            ("e1", Self.askFrame(last, requestID: 3)),
        ])

        #expect(broker.engine.redoneBatches.load(ordering: .relaxed) == 1, "the batch ran again with savepoints")
        #expect(replies[0].accepted?.asked.question.id == first.id, "\(replies[0])")
        #expect(replies[1].errorCode == .internalError, "\(replies[1])")
        #expect(replies[2].accepted?.asked.question.id == last.id, "\(replies[2])")
        #expect(try await broker.storedQuestion(first.id) != nil)
        #expect(try await broker.storedQuestion(refused.id) == nil, "the failed ask's question is undone")
        #expect(try await broker.storedQuestion(last.id) != nil)
        #expect(try await Self.reminders(broker) == 2, "the failed ask's reminder is undone")
        #expect(Set(events.map(\.memberID)) == ["emma", "alice", "bob"])
        let heads = try await broker.storage.storedHeads()
        #expect(heads["yuri"] == nil && heads["zed"] == nil, "\(heads)")
        #expect(heads["emma"] == 2 && heads["alice"] == 2 && heads["bob"] == 2, "\(heads)")
    }

    @Test func aCommandThatFailsBeforeAnyChangeLeavesTheBatchUnguarded() async throws {
        let broker = try await BrokerHarness()
        defer { broker.temp.remove() }
        let first = question(["h1"])
        let invalid = question(["h2"], defaultChoiceID: "no-such-choice")
        let last = question(["h3"])
        let (replies, events) = try await broker.batch([
            ("e1", Self.askFrame(first, requestID: 1)), ("e1", Self.askFrame(invalid, requestID: 2)),
            ("e1", Self.askFrame(last, requestID: 3)),
        ])

        #expect(broker.engine.redoneBatches.load(ordering: .relaxed) == 0, "nothing to undo, nothing redone")
        #expect(replies[0].accepted != nil && replies[2].accepted != nil, "\(replies)")
        #expect(replies[1].errorCode == .invalidQuestion, "\(replies[1])")
        #expect(try await broker.questionCount() == 2)
        #expect(try await Self.reminders(broker) == 2)
        #expect(events.filter { $0.memberID == "emma" }.map(\.sequence) == [1, 2])
    }
}

/// A store that bounds its transactions (PostgreSQL: its statements are round trips) gets a long batch as several
/// transactions, in order (docs/decisions/0011-fenced-leases.md).
@Suite struct BoundedTransactionTests {
    @Test func aLongBatchCommitsInSeveralTransactionsInOrder() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let directory = try TestFamily.directory()
        let commits = Atomic<Int>(0)
        let engine = BrokerEngine(
            storage: store, directory: DirectoryBox(directory), sequences: SequenceBook([:]), logger: quietLogger,
            policy: BrokerHarness.policy, clock: Date.init, deliver: { _ in commits.add(1, ordering: .relaxed) },
            maxCommandsPerTransaction: 4)
        let asks = (1...10).map { n in question(["h\(n)"]) }
        let requests = asks.map { asked in
            BrokerRequest(deviceID: "e1", memberID: "emma", command: .ask(app: "com.example.chat", question: asked))
        }
        let (outcomes, output) = await engine.process(requests)

        #expect(commits.load(ordering: .relaxed) == 3, "10 commands, at most 4 per transaction")
        #expect(outcomes.count == 10)
        for (outcome, asked) in zip(outcomes, asks) {
            guard case .success(.askAccepted(let stored, nil)) = outcome else {
                Issue.record("\(outcome)")
                continue
            }
            #expect(stored.question.id == asked.id)
        }
        #expect(output.events.filter { $0.memberID == "emma" }.map(\.sequence) == Array(1...10))
        #expect(output.eventFrames.count == output.events.count)
        #expect(try await store.storedHeads()["emma"] == 10)
    }

    @Test func onPostgreSQLABatchLongerThanOneTransactionIsAnsweredInOrder() async throws {
        try await BrokerHarness.with(.postgres) { broker in
            let limit = try #require(broker.storage.maxCommandsPerTransaction)
            let asks = (1...(limit + 6)).map { n in question(["h\(n)"]) }
            let (replies, events) = try await broker.batch(
                asks.enumerated().map { index, asked in
                    ("e1", UnguardedBatchTests.askFrame(asked, requestID: UInt64(index + 1)))
                })
            #expect(replies.map { $0.accepted?.asked.question.id } == asks.map(\.id))
            #expect(events.filter { $0.memberID == "emma" }.map(\.sequence) == (1...UInt64(asks.count)).map { $0 })
            #expect(try await broker.storage.storedHeads()["emma"] == UInt64(asks.count))
        }
    }
}
