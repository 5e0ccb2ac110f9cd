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

/// The PostgreSQL writer sends as few statements as it can (`HeldWrites`: a command's savepoint once it writes, its
/// events in one insert), and every command stays atomic: on a real server.
@Suite("PostgreSQL round trips", .tags(.postgres))
struct PostgresRoundTripTests {
    let contract = StorageContractTests()

    /// A store on a fresh database, dropped afterwards whether `body` passed or not.
    func withStore(_ body: (PostgresStore) async throws -> Void) async throws {
        let (url, password, drop) = try await TestPostgres.database()
        do {
            try await body(try await PostgresStore.opened(url: url, password: password))
        } catch {
            await drop()
            throw error
        }
        await drop()
    }

    /// The second command's events are refused by the server only when they are sent, as its command ends (a
    /// sequence number already taken): that command changes nothing, its question included, and the commands before
    /// and after it commit.
    @Test func aCommandWhoseEventsTheServerRefusesIsUndoneAloneAndItsNeighboursCommit() async throws {
        try await withStore { store in
            let (first, refused) = (contract.asked(["first"]), contract.asked(["refused"]))
            // What the writer's queue saw comes back to be checked here: an #expect there is outside the test.
            let refusal = try await store.transaction(
                { (tx) throws -> (any Error)? in
                    try tx.savepoint {
                        try tx.insert(first, resolution: nil)
                        try contract.append(contract.event("emma", 1), to: tx)
                    }
                    var refusal: (any Error)?
                    do {
                        try tx.savepoint {
                            try tx.insert(refused, resolution: nil)
                            try contract.append(contract.event("bob", 1), to: tx)
                            try contract.append(contract.event("emma", 1, "again"), to: tx)
                        }
                    } catch {
                        refusal = error
                    }
                    try tx.savepoint { try contract.append(contract.event("emma", 2), to: tx) }
                    return refusal
                }, committed: { _ in })
            #expect(
                refusal is PSQLError,
                "the duplicate sequence number is refused at the server: \(String(describing: refusal))")
            #expect(try await store.reading { try $0.question(first.question.id)?.asked } == first)
            #expect(try await store.reading { try $0.question(refused.question.id) } == nil)
            #expect(try await store.storedHeads() == ["emma": 2], "bob's event went with its command")
            let bodies = try await store.reading { try $0.events(of: "emma", after: 0, limit: 10) }.map(\.body)
            #expect(bodies == [contract.event("emma", 1).body, contract.event("emma", 2).body])
        }
    }

    /// A write transaction sends `BEGIN` and asks for its id without waiting for either: its first wait answers them;
    /// and its `COMMIT` is its last wait, checking what its commands did not wait for.
    @Test func aTransactionsBeginIsAnsweredByItsFirstWait() async throws {
        try await withStore { store in
            let asked = contract.asked(["pal"])
            let counted = try await store.transaction(
                { (writer) throws -> [Int] in
                    guard let tx = writer as? PostgresTransaction else { throw NotPostgres() }
                    let atStart = [tx.held.statements, tx.held.waits]
                    try tx.unguarded { _ = try tx.question(asked.question.id) }
                    try tx.unguarded { try tx.insert(asked, resolution: nil) }
                    return atStart + [tx.held.statements, tx.held.waits, tx.held.inFlight.count]
                }, committed: { _ in })
            // BEGIN and the id sent, none waited for; then the read (one wait), and the insert not checked yet.
            #expect(counted == [2, 0, 4, 1, 1])
            #expect(try await store.reading { try $0.question(asked.question.id)?.asked } == asked, "committed")
        }
    }

    /// A command that only reads sends no savepoint; one that writes sends one, and all its events in one insert.
    @Test func aCommandOpensItsSavepointOnlyToWriteAndSendsItsEventsAsOneInsert() async throws {
        try await withStore { store in
            let asked = contract.asked(["pal"])
            // Statements sent by each step, counted on the writer's queue and checked here.
            let sent = try await store.transaction(
                { (writer) throws -> [Int] in
                    guard let tx = writer as? PostgresTransaction else { throw NotPostgres() }
                    var sent: [Int] = []
                    var before = tx.held.statements
                    try tx.savepoint { _ = try tx.question(asked.question.id) }
                    sent.append(tx.held.statements - before)
                    before = tx.held.statements
                    do {
                        try tx.savepoint { throw ContractError() }
                        sent.append(-1)  // the error did not come through
                    } catch is ContractError {
                        sent.append(tx.held.statements - before)
                    }
                    before = tx.held.statements
                    try tx.savepoint {
                        try tx.insert(asked, resolution: nil)
                        for member in ["emma", "mum", "dad"] { try contract.append(contract.event(member, 1), to: tx) }
                    }
                    sent.append(tx.held.statements - before)
                    before = tx.held.statements
                    try tx.unguarded { try contract.append(contract.event("emma", 2), to: tx) }
                    sent.append(tx.held.statements - before)
                    return sent
                }, committed: { _ in })
            // The read alone; nothing written, nothing to undo; SAVEPOINT, the question, the three events; unguarded:
            // nothing yet (its events go with the commit).
            #expect(sent == [1, 0, 3, 0])
            #expect(try await store.storedHeads() == ["emma": 2, "mum": 1, "dad": 1])
        }
    }

    /// A batch of unguarded commands holds all their events until the commit and sends them as one insert; a command
    /// that fails before writing loses its own events, and those of the commands before and after it commit.
    @Test func anUnguardedBatchSendsItsCommandsEventsInOneInsertAtCommit() async throws {
        try await withStore { store in
            let asked = contract.asked(["pal"])
            let (sentByCommands, held) = try await store.transaction(
                { (writer) throws -> (Int, Int) in
                    guard let tx = writer as? PostgresTransaction else { throw NotPostgres() }
                    let before = tx.held.statements
                    try tx.unguarded { try contract.append(contract.event("emma", 1), to: tx) }
                    try? tx.unguarded {
                        try contract.append(contract.event("mum", 1, "failed"), to: tx)
                        throw ContractError()
                    }
                    try tx.unguarded {
                        _ = try tx.question(asked.question.id)
                        try tx.insert(asked, resolution: nil)
                        try contract.append(contract.event("emma", 2), to: tx)
                        try contract.append(contract.event("dad", 1), to: tx)
                    }
                    return (tx.held.statements - before, tx.held.mark.events)
                }, committed: { _ in })
            #expect(sentByCommands == 2, "the read and the question; no events before the commit")
            #expect(held == 3, "the failed command's event is gone")
            #expect(try await store.storedHeads() == ["emma": 2, "dad": 1])
        }
    }

    /// A pending question and its reminder go in one statement; with no reminder, the question alone is stored.
    @Test func aPendingQuestionAndItsReminderAreOneStatement() async throws {
        try await withStore { store in
            let (reminded, unreminded) = (contract.asked(["reminded"]), contract.asked(["unreminded"]))
            let remindAt = Date(timeIntervalSince1970: 1_000)
            let sent = try await store.transaction(
                { (writer) throws -> Int in
                    guard let tx = writer as? PostgresTransaction else { throw NotPostgres() }
                    let before = tx.held.statements
                    try tx.unguarded { try tx.insert(reminded, remindAt: remindAt) }
                    try tx.unguarded { try tx.insert(unreminded, remindAt: nil) }
                    return tx.held.statements - before
                }, committed: { _ in })
            #expect(sent == 2)
            let (due, stored) = try await store.reading { reader in
                (
                    try reader.dueReminders(at: remindAt, limit: 10),
                    try [reminded, unreminded].map { try reader.question($0.question.id)?.asked }
                )
            }
            #expect(due == [reminded.question.id])
            #expect(stored == [reminded, unreminded])
        }
    }

    /// With no savepoint open, a read the server fails (as one cancelled at its timeout) has ended the transaction:
    /// the command fails as on a lost connection, so the batch fails and devices send it again; nothing commits.
    @Test func aReadTheServerFailsBeforeTheCommandWroteFailsTheBatchAsUnavailable() async throws {
        try await withStore { store in
            let kept = contract.asked(["kept"])
            let failure = Mutex<(any Error)?>(nil)
            await #expect(throws: PostgresStore.RolledBack.self) {
                try await store.transaction(
                    { (writer) throws in
                        guard let tx = writer as? PostgresTransaction else { throw NotPostgres() }
                        try tx.savepoint { try tx.insert(kept, resolution: nil) }
                        do {
                            try tx.savepoint { _ = try tx.rows("SELECT 1 / 0") }
                        } catch {
                            failure.withLock { $0 = error }
                        }
                    }, committed: { _ in })
            }
            #expect(failure.withLock { $0 } is StoreUnavailable, "\(String(describing: failure.withLock { $0 }))")
            let found = try await store.reading { try $0.question(kept.question.id) }
            #expect(found == nil, "nothing of the batch was stored")
        }
    }

    /// As `UnguardedBatchTests` on SQLite: Yuri's events are refused by the server, so his ask fails after its
    /// reminder and question were sent. Run first without savepoints, the batch runs again with them, and only his
    /// ask is undone.
    @Test func aBatchWhoseCommandFailsAfterAWriteRunsAgainWithSavepointsAndOnlyThatCommandIsUndone() async throws {
        try await BrokerHarness.with(.postgres) { broker in
            try await Self.refuseYurisEvents(broker)
            let (first, refused, last) = (question(["h1"]), question(["y1"]), question(["h2"]))
            let (replies, events) = try await broker.batch([
                ("e1", UnguardedBatchTests.askFrame(first, requestID: 1)),
                ("y1", UnguardedBatchTests.askFrame(refused, requestID: 2)),
                ("e1", UnguardedBatchTests.askFrame(last, requestID: 3)),
            ])

            #expect(broker.engine.redoneBatches.load(ordering: .relaxed) == 1, "the batch ran again with savepoints")
            #expect(replies[0].accepted?.asked.question.id == first.id, "\(replies[0])")
            #expect(replies[1].errorCode == .internalError, "\(replies[1])")
            #expect(replies[2].accepted?.asked.question.id == last.id, "\(replies[2])")
            #expect(try await broker.storedQuestion(first.id) != nil)
            #expect(try await broker.storedQuestion(refused.id) == nil, "the failed ask's question is undone")
            #expect(try await broker.storedQuestion(last.id) != nil)
            let reminders = try await broker.storage.reading { reader in
                try (reader as! PostgresTransaction).rows("SELECT COUNT(*) FROM question_reminder").first?.decode(
                    Int.self)
            }
            #expect(reminders == 2, "the failed ask's reminder is undone")
            #expect(Set(events.map(\.memberID)) == ["emma", "alice", "bob"])
            let heads = try await broker.storage.storedHeads()
            #expect(heads["yuri"] == nil && heads["zed"] == nil, "\(heads)")
            #expect(heads["emma"] == 2 && heads["alice"] == 2 && heads["bob"] == 2, "\(heads)")
        }
    }

    /// A command that fails before it writes leaves the batch unguarded: nothing to undo, nothing run again.
    @Test func aBatchWhoseCommandFailsBeforeWritingIsNotRunAgain() async throws {
        try await BrokerHarness.with(.postgres) { broker in
            let (first, invalid, last) = (
                question(["h1"]), question(["h2"], defaultChoiceID: "no-such-choice"), question(["h3"])
            )
            let (replies, events) = try await broker.batch([
                ("e1", UnguardedBatchTests.askFrame(first, requestID: 1)),
                ("e1", UnguardedBatchTests.askFrame(invalid, requestID: 2)),
                ("e1", UnguardedBatchTests.askFrame(last, requestID: 3)),
            ])
            #expect(broker.engine.redoneBatches.load(ordering: .relaxed) == 0, "nothing to undo, nothing redone")
            #expect(replies[0].accepted != nil && replies[2].accepted != nil, "\(replies)")
            #expect(replies[1].errorCode == .invalidQuestion, "\(replies[1])")
            #expect(try await broker.questionCount() == 2)
            #expect(events.filter { $0.memberID == "emma" }.map(\.sequence) == [1, 2])
        }
    }

    /// An ask's reads in pairs: the settings are sent with the ask count, the approved handles with the contact
    /// flags, one wait for each pair. A write between a read sent ahead and the call that needs it is seen: that
    /// read is sent again.
    @Test func readsSentAheadAreTakenByTheNextCallUnlessAWriteCameBetween() async throws {
        try await withStore { store in
            let handles = [handle("pal")]
            let settings = CommunicationSettings(enabled: true, screenTime: .everyone)
            // Observed on the writer's queue, checked here (an expectation there is outside the test).
            let (sent, waited, readBefore, readAfter, knownAfter) = try await store.transaction(
                { (writer) throws in
                    let tx = writer as! PostgresTransaction
                    let (statements, waits) = (tx.held.statements, tx.held.waits)
                    let before = try tx.savepoint { () throws -> CommunicationSettings? in
                        _ = try tx.askCount(child: "emma", since: .distantPast, upTo: 5)
                        let read = try tx.settings(of: "emma")
                        _ = try tx.contactFlags(of: "emma", among: handles)
                        _ = try tx.knownHandles(of: "emma", among: handles)
                        return read
                    }
                    let (sent, waited) = (tx.held.statements - statements, tx.held.waits - waits)
                    let (after, known) = try tx.savepoint {
                        () throws -> (CommunicationSettings?, [CommunicationHandle]) in
                        _ = try tx.askCount(child: "emma", since: .distantPast, upTo: 5)
                        try tx.saveSettings(settings, of: "emma")
                        let after = try tx.settings(of: "emma")
                        _ = try tx.contactFlags(of: "emma", among: handles)
                        _ = try tx.addKnownHandles(handles, child: "emma", question: nil)
                        return (after, try tx.knownHandles(of: "emma", among: handles))
                    }
                    return (sent, waited, before, after, known)
                }, committed: { _ in })
            #expect(sent == 4)
            #expect(waited == 2, "one wait for each pair")
            #expect(readBefore == nil)
            #expect(readAfter == settings, "the write is seen")
            #expect(knownAfter == handles, "the write is seen")
        }
    }

    /// Makes the server refuse every event of Yuri's (a trigger on `event`), so that his commands fail after their
    /// first writes. The type check throws rather than `#require`s: the closure runs on the writer's queue, outside
    /// the test.
    static func refuseYurisEvents(_ broker: BrokerHarness) async throws {
        try await broker.storage.transaction(
            { (writer) throws in
                guard let tx = writer as? PostgresTransaction else { throw NotPostgres() }
                try tx.execute(
                    """
                    CREATE FUNCTION refuse_yuri() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN IF NEW.member_id = 'yuri' THEN RAISE EXCEPTION 'refused by the test'; END IF;
                    RETURN NEW; END $$
                    """)
                try tx.execute(
                    "CREATE TRIGGER refuse_yuri BEFORE INSERT ON event FOR EACH ROW EXECUTE FUNCTION refuse_yuri()")
            }, committed: { _ in })
    }
}

/// A store that should have been PostgreSQL's was not (thrown on the writer's queue, where `#require` is outside the
/// test).
struct NotPostgres: Error {}
