import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The writer's memory of the event log's recent part (`RecentEvents`, `v9-event-tail`): the same events and the
/// same refusals as the rows, through savepoints, moves and other connections' writes.
@Suite("Recent events")
struct RecentEventsTests {
    func event(_ member: MemberID, _ sequence: UInt64, _ value: String = "h") -> Event {
        Event(
            memberID: member, sequence: sequence, createdAt: EventLogLayoutTests.now,
            body: .handlesChanged(added: [handle(value)], removed: []))
    }

    func append(_ event: Event, to tx: any StorageWriter) throws {
        try tx.appendEvent(event, body: Event.storedBody(ofFrame: event.publicationFrame().frame))
    }

    func append(_ events: [Event], to store: BrokerStore) async throws {
        try await store.transaction({ tx in for event in events { try append(event, to: tx) } }, committed: { _ in })
    }

    @Test func aCommandsEventsGoWithItsSavepoint() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        try await append([event("emma", 1), event("emma", 2)], to: store)
        let read = try await store.transaction(
            { tx in
                #expect(throws: ContractError.self) {
                    try tx.savepoint {
                        try append(event("emma", 3), to: tx)
                        try append(event("alice", 1), to: tx)
                        throw ContractError()
                    }
                }
                // Stored again under the same numbers: the writer forgot the rolled-back ones.
                try append(event("emma", 3, "again"), to: tx)
                try append(event("alice", 1, "again"), to: tx)
                return try tx.events(of: "emma", after: 0, limit: 10) + tx.events(of: "alice", after: 0, limit: 10)
            }, committed: { _ in })
        let expected = [event("emma", 1), event("emma", 2), event("emma", 3, "again"), event("alice", 1, "again")]
        #expect(read == expected)
        let committed = try await store.reading { reader in
            try reader.events(of: "emma", after: 0, limit: 10) + reader.events(of: "alice", after: 0, limit: 10)
        }
        #expect(committed == expected)
        #expect(try await store.storedHeads() == ["emma": 3, "alice": 1])
    }

    @Test func eventsStoredOutOfOrderAreKeptInOrderAndStoredOnce() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let read = try await store.transaction(
            { tx in
                for sequence: UInt64 in [5, 1, 3] { try append(event("emma", sequence), to: tx) }
                #expect(throws: ContractError.self) {
                    try tx.savepoint {
                        try append(event("emma", 2), to: tx)
                        throw ContractError()
                    }
                }
                for sequence: UInt64 in [1, 3, 5] {
                    #expect(throws: (any Error).self, "emma \(sequence) again") {
                        try append(event("emma", sequence), to: tx)
                    }
                }
                try append(event("emma", 4), to: tx)
                return try tx.events(of: "emma", after: 1, limit: 10).map(\.sequence)
            }, committed: { _ in })
        #expect(read == [3, 4, 5])
        #expect(try await store.reading { try $0.events(of: "emma", after: 1, limit: 10) }.map(\.sequence) == read)
    }

    @Test func theWriterReadsTheRecentPartAsAReaderDoesAcrossMoves() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let members: [MemberID] = ["emma", "alice", "bob"]
        var written: [MemberID: UInt64] = [:]
        // Eleven transactions of 999 events over three members: two moves (at 4,096), then 999 recent entries.
        for _ in 0..<11 {
            var batch: [Event] = []
            for index in 0..<999 {
                let member = members[index % 3]
                written[member, default: 0] += 1
                batch.append(event(member, written[member]!, "\(written[member]!)"))
            }
            try await append(batch, to: store)
        }
        let heads = written
        let reads: @Sendable (any StorageReader) throws -> [[Event]] = { reader in
            try members.flatMap { member in
                try [0, 1, 2_000, heads[member]! - 5, heads[member]!].map { after in
                    try reader.events(of: member, after: after, limit: 1_000)
                }
            }
        }
        let read = try await store.transaction({ tx in try reads(tx) }, committed: { _ in })
        #expect(read == (try await store.reading(reads)))
        #expect(read[3].map(\.sequence) == Array(heads["emma"]! - 4...heads["emma"]!))
        #expect(
            store.writerStatements.withLock { $0.recentEvents.loads } == 1,
            "loaded once, kept current through the moves")
        let recent = try await store.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event_log WHERE \(BrokerStore.recentEventsFilter)")
        }
        #expect(recent == store.writerStatements.withLock { $0.recentEvents.count })
        #expect(recent == 999)
        #expect(try await store.storedHeads() == heads)
    }

    @Test func eventsAnotherConnectionAppendedAreSeenByTheWriter() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let first = try await BrokerStore.opened(at: temp.databasePath)
        // The first writer learns emma's recent part: 1 to 10.
        try await append((1...10).map { event("emma", $0) }, to: first)
        let other = try await BrokerStore.opened(at: temp.databasePath)
        try await append((11...20).map { event("emma", $0) }, to: other)
        await #expect(throws: (any Error).self, "emma 15, stored by the other store") {
            try await append([event("emma", 15)], to: first)
        }
        try await append([event("emma", 21)], to: first)
        let read = try await first.transaction(
            { tx in try tx.events(of: "emma", after: 0, limit: 100) }, committed: { _ in })
        #expect(read == (1...21).map { event("emma", $0) })
    }
}
