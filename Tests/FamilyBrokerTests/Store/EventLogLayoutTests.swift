import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The SQLite store's event log (`BrokerStore+EventLog`): appended in commit order, its (member, sequence) map for
/// the log's last rows (the recent part) kept by the writer and moved to the index part once full, and the older
/// layouts migrated into it.
@Suite("Event log layout")
struct EventLogLayoutTests {
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    func event(_ member: MemberID, _ sequence: UInt64) -> Event {
        Event(
            memberID: member, sequence: sequence, createdAt: Self.now,
            body: .handlesChanged(added: [handle("h\(sequence)")], removed: []))
    }

    func append(_ events: [Event], to store: BrokerStore) async throws {
        try await store.transaction(
            { tx in
                for event in events {
                    try tx.appendEvent(event, body: Event.storedBody(ofFrame: event.publicationFrame().frame))
                }
            }, committed: { _ in })
    }

    func counts(_ store: BrokerStore) async throws -> (recent: Int, index: Int) {
        try await store.read { db in
            (
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM event_log WHERE \(BrokerStore.recentEventsFilter)") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event_index") ?? -1
            )
        }
    }

    @Test func recentEntriesMoveToTheIndexOnceFullAndEveryEventStaysReadable() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let limit = BrokerStore.recentEventLimit
        // Two members interleaved, in transactions of 1,000 events, past the limit.
        var heads: [MemberID: UInt64] = ["emma": 0, "alice": 0]
        var written = 0
        while written < limit + 1_500 {
            var batch: [Event] = []
            for _ in 0..<500 {
                for member in ["emma", "alice"] {
                    heads[member]! += 1
                    batch.append(event(member, heads[member]!))
                }
            }
            try await append(batch, to: store)
            written += batch.count
        }
        heads["emma"]! += 1
        try await append([event("emma", heads["emma"]!)], to: store)
        let (recent, index) = try await counts(store)
        #expect(index >= limit, "the recent part moved to the index")
        #expect(recent < limit)
        #expect(recent + index == written + 1)
        #expect(try await store.storedHeads() == heads)
        // A read that spans both parts, in sequence order.
        let start = UInt64(index / 2 - 10)
        let events = try await store.reading { try $0.events(of: "emma", after: start, limit: 100) }
        #expect(events.map(\.sequence) == Array(start + 1...start + 100))
        #expect(events.allSatisfy { $0.memberID == "emma" })
        #expect(events.first == event("emma", start + 1))
        let all = try await store.reading { try $0.events(of: "alice", after: 0, limit: 100_000) }
        #expect(all.map(\.sequence) == Array(1...heads["alice"]!))
        // A sequence is stored once per member, in either part.
        for sequence: UInt64 in [1, heads["emma"]!] {
            await #expect(throws: (any Error).self, "emma \(sequence) again") {
                try await append([event("emma", sequence)], to: store)
            }
        }
        let after = try await counts(store)
        #expect(after.recent == recent && after.index == index, "a refused event leaves no row behind")
        #expect(try await BrokerStore.opened(at: temp.databasePath).storedHeads() == heads)
    }

    @Test func aRolledBackMoveLeavesBothPartsAsTheyWere() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        try await append((1...UInt64(BrokerStore.recentEventLimit)).map { event("emma", $0) }, to: store)
        await #expect(throws: ContractError.self) {
            try await store.transaction({ (_) throws -> Int in throw ContractError() }, committed: { _ in })
        }
        let (recent, index) = try await counts(store)
        #expect(recent == BrokerStore.recentEventLimit)
        #expect(index == 0)
        #expect(try await store.storedHeads() == ["emma": UInt64(BrokerStore.recentEventLimit)])
    }

    @Test func theOlderLayoutIsMigratedWithEveryEvent() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let events = (1...30).map { event("emma", UInt64($0)) } + (1...7).map { event("alice", UInt64($0)) }
        do {
            // The schema and rows as a broker before the event log layout left them.
            let queue = try DatabaseQueue(path: temp.databasePath)
            try BrokerStore.migrator.migrate(queue, upTo: "age-range-v1")
            try await queue.write { db in
                for event in events {
                    let body = Event.storedBody(ofFrame: event.publicationFrame().frame)
                    try db.execute(
                        sql: "INSERT INTO event (member_id, seq, body) VALUES (?, ?, ?)",
                        arguments: [event.memberID, Int64(event.sequence), Data(body)])
                }
            }
            try queue.close()
        }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        #expect(try await store.storedHeads() == ["emma": 30, "alice": 7])
        #expect(try await store.reading { try $0.events(of: "emma", after: 0, limit: 100) } == Array(events[0..<30]))
        #expect(try await store.reading { try $0.events(of: "alice", after: 3, limit: 2) } == Array(events[33..<35]))
        let hasOldTable = try await store.read { db in try db.tableExists("event") }
        #expect(!hasOldTable)
        await #expect(throws: (any Error).self, "a migrated sequence is stored once") {
            try await append([event("emma", 30)], to: store)
        }
        try await append([event("emma", 31)], to: store)
        #expect(try await store.storedHeads() == ["emma": 31, "alice": 7])
    }

    @Test func theV3TriggersAreGoneAndTheirRefusalsKept() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        do {
            // A store as the broker left it before `v5-event-positions`: positions recorded by the v3 triggers.
            let queue = try DatabaseQueue(path: temp.databasePath)
            try BrokerStore.migrator.migrate(queue, upTo: "v4-ask-windows")
            try await queue.write { db in
                for sequence in 1...12 {
                    let body = Event.storedBody(
                        ofFrame: event("emma", UInt64(sequence)).publicationFrame().frame)
                    try db.execute(
                        sql: "INSERT INTO event_log (member_id, seq, body) VALUES ('emma', ?, ?)",
                        arguments: [sequence, Data(body)])
                    if sequence == 10 {
                        // The move of that layout.
                        try db.execute(
                            sql: """
                                INSERT INTO event_index (member_id, seq, pos) SELECT member_id, seq, pos FROM event_recent;
                                DELETE FROM event_recent;
                                """)
                    }
                }
            }
            try queue.close()
        }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let triggers = try await store.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger'")
        }
        #expect(triggers == 0)
        // `v9-event-tail` moved the two recent entries into the index.
        #expect(try await counts(store) == (recent: 0, index: 12))
        #expect(try await store.storedHeads() == ["emma": 12])
        // The writer's statements and the store's own (the benchmarks' bulk writer) refuse alike.
        for sequence: UInt64 in [1, 10, 11, 12] {
            await #expect(throws: (any Error).self, "emma \(sequence) again, by the writer") {
                try await append([event("emma", sequence)], to: store)
            }
            await #expect(throws: (any Error).self, "emma \(sequence) again, by the store") {
                try await store.write { db in
                    try BrokerStore.appendEvent(
                        event("emma", sequence),
                        body: Event.storedBody(ofFrame: event("emma", sequence).publicationFrame().frame),
                        in: db)
                }
            }
        }
        #expect(try await counts(store) == (recent: 0, index: 12), "a refused event leaves no row behind")
        try await append([event("emma", 13)], to: store)
        try await store.write { db in
            try BrokerStore.appendEvent(
                event("emma", 14), body: Event.storedBody(ofFrame: event("emma", 14).publicationFrame().frame),
                in: db)
        }
        let all = try await store.reading { try $0.events(of: "emma", after: 0, limit: 100) }
        #expect(all == (1...14).map { event("emma", $0) })
    }

    @Test func aMoveByAnotherConnectionIsSeenByTheWriter() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let first = try await BrokerStore.opened(at: temp.databasePath)
        // The first writer learns that nothing of emma's has moved yet.
        try await append((1...10).map { event("emma", $0) }, to: first)
        let other = try await BrokerStore.opened(at: temp.databasePath)
        let last = UInt64(10 + BrokerStore.recentEventLimit)
        try await append((11...last).map { event("emma", $0) }, to: other)
        try await append([], to: other)
        #expect(try await counts(other).index == Int(last), "the other store moved every entry")
        await #expect(throws: (any Error).self, "emma 11, moved by the other store") {
            try await append([event("emma", 11)], to: first)
        }
        try await append([event("emma", last + 1)], to: first)
        #expect(try await first.storedHeads() == ["emma": last + 1])
    }
}
