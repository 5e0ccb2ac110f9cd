import Foundation
import HearthCore
import HearthProtocol
import PostgresNIO
import Synchronization
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// An ask's reads sent together (`willCheckAsk`), and unguarded commands that do not wait for their writes: fewer
/// waits, with the same answers and the same failures.
extension PostgresRoundTripTests {
    /// What an ask reads, in the engine's order.
    struct AskReads: Equatable, Sendable {
        var question: Stored.Question?
        var count: Int
        var settings: CommunicationSettings?
        var flags: [CommunicationHandle: Bool]
        var known: [CommunicationHandle]
        var pending: Stored.Question?

        init(_ tx: PostgresTransaction, _ asked: AskedQuestion) throws {
            let (child, handles) = (asked.childMemberID, asked.question.handles)
            question = try tx.question(asked.question.id)
            count = try tx.askCount(child: child, since: .distantPast, upTo: 30)
            settings = try tx.settings(of: child)
            flags = try tx.contactFlags(of: child, among: handles)
            known = try tx.knownHandles(of: child, among: handles)
            pending = try tx.pendingQuestion(
                child: child, app: asked.appBundleID, handles: handles, now: StorageContractTests.now)
        }
    }

    /// The six reads of an ask are sent as one statement before the first is waited for, and one wait answers them
    /// all; each call returns what it returns without the hint.
    @Test func anAsksReadsAreSentTogetherAndAnsweredByOneWait() async throws {
        try await withStore { store in
            let asked = contract.asked(["pal", "bud"])
            let settings = CommunicationSettings(enabled: true, screenTime: .contactsOnly)
            try await store.transaction(
                { (tx) throws in
                    try tx.savepoint {
                        try tx.insert(asked, resolution: nil)
                        try tx.saveSettings(settings, of: "emma")
                        _ = try tx.upsertContacts(
                            [Contact(handle: handle("pal"), allowedDuringDowntime: true)], of: "emma")
                        _ = try tx.addKnownHandles([handle("bud")], child: "emma", question: nil)
                    }
                }, committed: { _ in })
            let (hinted, unhinted, sent, waited) = try await store.transaction(
                { (writer) throws in
                    let tx = writer as! PostgresTransaction
                    let (statements, waits) = (tx.held.statements, tx.held.waits)
                    let hinted = try tx.savepoint {
                        tx.willCheckAsk(
                            asked.question.id, child: "emma", handles: asked.question.handles, since: .distantPast,
                            limit: 30, now: StorageContractTests.now)
                        return try AskReads(tx, asked)
                    }
                    let (sent, waited) = (tx.held.statements - statements, tx.held.waits - waits)
                    return (hinted, try tx.savepoint { try AskReads(tx, asked) }, sent, waited)
                }, committed: { _ in })
            #expect(sent == 1, "the six reads in one statement")
            #expect(waited == 1, "one wait for all six")
            #expect(hinted == unhinted)
            #expect(hinted.question?.asked == asked && hinted.pending?.asked == asked && hinted.count == 1)
            #expect(
                hinted.settings == settings && hinted.flags == [handle("pal"): true] && hinted.known == [handle("bud")])
        }
    }

    /// A write after the hint is seen by the reads after it: they are sent again, not taken from the statement sent
    /// before the write.
    @Test func aWriteAfterAnAsksHintIsSeenByTheReadsAfterIt() async throws {
        try await withStore { store in
            let asked = contract.asked(["pal"])
            let settings = CommunicationSettings(enabled: true, screenTime: .everyone)
            let (before, after, sent) = try await store.transaction(
                { (writer) throws in
                    let tx = writer as! PostgresTransaction
                    return try tx.savepoint {
                        tx.willCheckAsk(
                            asked.question.id, child: "emma", handles: asked.question.handles, since: .distantPast,
                            limit: 30, now: StorageContractTests.now)
                        let before = try tx.question(asked.question.id)
                        try tx.insert(asked, resolution: nil)
                        try tx.saveSettings(settings, of: "emma")
                        let statements = tx.held.statements
                        let after = try tx.settings(of: "emma")
                        return (before, after, tx.held.statements - statements)
                    }
                }, committed: { _ in })
            #expect(before == nil)
            #expect(after == settings, "the settings written after the hint")
            #expect(sent == 1, "the settings read again")
        }
    }

    /// A read sent ahead that the server fails fails its command even when the command never takes its answer (a
    /// retried ask reads no further than the question): the transaction is over, and nothing of it is stored.
    @Test func aReadSentAheadThatFailsFailsItsCommandUnreadAndNothingIsStored() async throws {
        try await withStore { store in
            let kept = contract.asked(["kept"])
            // The command's error, seen on the writer's queue (an expectation there is outside the test).
            let failure = Seen<String>()
            await #expect(throws: PostgresStore.RolledBack.self) {
                try await store.transaction(
                    { (writer) throws in
                        let tx = writer as! PostgresTransaction
                        try tx.savepoint { try tx.insert(kept, resolution: nil) }
                        // The contact flags' read fails at the server from now on (in this transaction).
                        try tx.execute("ALTER TABLE contact DROP COLUMN downtime")
                        do {
                            try tx.savepoint {
                                tx.willCheckAsk(
                                    kept.question.id, child: "emma", handles: kept.question.handles,
                                    since: .distantPast, limit: 30, now: StorageContractTests.now)
                                _ = try tx.question(kept.question.id)
                            }
                            failure.append("none")
                        } catch {
                            failure.append("\(type(of: error))")
                        }
                    }, committed: { _ in })
            }
            #expect(failure.all == ["StoreUnavailable"], "the command failed as on a lost connection")
            let found = try await store.reading { try $0.question(kept.question.id) }
            #expect(found == nil, "nothing was stored")
        }
    }

    /// An unguarded command does not wait for its writes; the next statement waited for checks them, and sees them.
    @Test func anUnguardedCommandDoesNotWaitForItsWrites() async throws {
        try await withStore { store in
            let asked = contract.asked(["pal"])
            let (waited, unchecked, found) = try await store.transaction(
                { (writer) throws in
                    let tx = writer as! PostgresTransaction
                    // BEGIN and the transaction's id are in flight too, not waited for either.
                    let (waits, inFlight) = (tx.held.waits, tx.held.inFlight.count)
                    try tx.unguarded {
                        try tx.insert(asked, resolution: nil)
                        try contract.append(contract.event("emma", 1), to: tx)
                    }
                    let (waited, unchecked) = (tx.held.waits - waits, tx.held.inFlight.count - inFlight)
                    return (waited, unchecked, try tx.unguarded { try tx.question(asked.question.id) })
                }, committed: { _ in })
            #expect(waited == 0)
            #expect(unchecked == 1, "the question, not checked when the command returned (its events go at the commit)")
            #expect(found?.asked == asked)
            #expect(try await store.storedHeads() == ["emma": 1])
        }
    }

    /// Yuri's ask is the batch's last command: his events are refused only when the transaction settles before its
    /// commit, after every command returned. The batch runs again with savepoints, and only his ask is undone.
    @Test func aBatchWhoseLastCommandsWritesFailAtTheCommitRunsAgainWithSavepoints() async throws {
        try await BrokerHarness.with(.postgres) { broker in
            try await Self.refuseYurisEvents(broker)
            let (first, refused) = (question(["h1"]), question(["y1"]))
            let (replies, events) = try await broker.batch([
                ("e1", UnguardedBatchTests.askFrame(first, requestID: 1)),
                ("y1", UnguardedBatchTests.askFrame(refused, requestID: 2)),
            ])
            #expect(broker.engine.redoneBatches.load(ordering: .relaxed) == 1, "the batch ran again with savepoints")
            #expect(replies[0].accepted?.asked.question.id == first.id, "\(replies[0])")
            #expect(replies[1].errorCode == .internalError, "\(replies[1])")
            #expect(try await broker.storedQuestion(first.id) != nil)
            #expect(try await broker.storedQuestion(refused.id) == nil, "the failed ask's question is undone")
            #expect(Set(events.map(\.memberID)) == ["emma", "alice", "bob"])
        }
    }
}
