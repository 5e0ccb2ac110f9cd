import Foundation
import HearthCore
import HearthProtocol
import PostgresNIO
import Testing

@testable import FamilyBroker

/// The PostgreSQL writer sends as few statements as it can (`HeldWrites`: a command's savepoint once it writes, its
/// events in one insert), and every command stays atomic: on a real server.
@Suite("PostgreSQL round trips")
struct PostgresRoundTripTests {
    let contract = StorageContractTests()

    /// A store on a fresh database, dropped afterwards whether `body` passed or not.
    func withStore(_ body: (PostgresStore) async throws -> Void) async throws {
        let (url, password, drop) = try await TestPostgres.database()
        do {
            try await body(try PostgresStore(url: url, password: password, logger: quietLogger))
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
            try await store.transaction(
                { (tx) throws in
                    try tx.savepoint {
                        try tx.insert(first, resolution: nil)
                        try contract.append(contract.event("emma", 1), to: tx)
                    }
                    #expect(throws: PSQLError.self, "the duplicate sequence number is refused at the server") {
                        try tx.savepoint {
                            try tx.insert(refused, resolution: nil)
                            try contract.append(contract.event("bob", 1), to: tx)
                            try contract.append(contract.event("emma", 1, "again"), to: tx)
                        }
                    }
                    try tx.savepoint { try contract.append(contract.event("emma", 2), to: tx) }
                }, committed: { _ in })
            #expect(try await store.reading { try $0.question(first.question.id)?.asked } == first)
            #expect(try await store.reading { try $0.question(refused.question.id) } == nil)
            #expect(try store.heads() == ["emma": 2], "bob's event went with its command")
            let bodies = try await store.reading { try $0.events(of: "emma", after: 0, limit: 10) }.map(\.body)
            #expect(bodies == [contract.event("emma", 1).body, contract.event("emma", 2).body])
        }
    }

    /// A command that only reads sends no savepoint; one that writes sends one, and all its events in one insert.
    @Test func aCommandOpensItsSavepointOnlyToWriteAndSendsItsEventsAsOneInsert() async throws {
        try await withStore { store in
            let asked = contract.asked(["pal"])
            try await store.transaction(
                { (writer) throws in
                    let tx = try #require(writer as? PostgresTransaction)
                    var before = tx.held.statements
                    try tx.savepoint { _ = try tx.question(asked.question.id) }
                    #expect(tx.held.statements - before == 1, "the read alone")
                    before = tx.held.statements
                    #expect(throws: ContractError.self) { try tx.savepoint { throw ContractError() } }
                    #expect(tx.held.statements == before, "nothing written: nothing to undo")
                    try tx.savepoint {
                        try tx.insert(asked, resolution: nil)
                        for member in ["emma", "mum", "dad"] { try contract.append(contract.event(member, 1), to: tx) }
                    }
                    #expect(tx.held.statements - before == 3, "SAVEPOINT, the question, the three events")
                }, committed: { _ in })
            #expect(try store.heads() == ["emma": 1, "mum": 1, "dad": 1])
        }
    }

    /// With no savepoint open, a read the server fails (as one cancelled at its timeout) has ended the transaction:
    /// the command fails as on a lost connection, so the batch fails and devices send it again; nothing commits.
    @Test func aReadTheServerFailsBeforeTheCommandWroteFailsTheBatchAsUnavailable() async throws {
        try await withStore { store in
            let kept = contract.asked(["kept"])
            await #expect(throws: PostgresStore.RolledBack.self) {
                try await store.transaction(
                    { (writer) throws in
                        let tx = try #require(writer as? PostgresTransaction)
                        try tx.savepoint { try tx.insert(kept, resolution: nil) }
                        #expect(throws: StoreUnavailable.self) {
                            try tx.savepoint { _ = try tx.rows("SELECT 1 / 0") }
                        }
                    }, committed: { _ in })
            }
            #expect(try await store.reading { try $0.question(kept.question.id) } == nil)
        }
    }
}
