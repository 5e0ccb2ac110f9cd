import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The SQLite store's approved handles in two parts (`BrokerStore+KnownHandles`, migration `v8-known-handle-recent`):
/// new approvals in a small recent part, moved into the part keyed by child once `recentKnownHandleLimit` are there;
/// lookups, additions and removals across both, each handle stored once; older stores migrated.
@Suite("Known handle layout")
struct KnownHandleLayoutTests {
    /// Each part's rows, `value` of each, in key order.
    static func parts(_ store: BrokerStore) async throws -> (keyed: [String], recent: [String]) {
        try await store.read { db in
            (
                try String.fetchAll(db, sql: "SELECT value FROM known_handle ORDER BY child_id, kind, value"),
                try String.fetchAll(db, sql: "SELECT value FROM known_handle_recent ORDER BY child_id, kind, value")
            )
        }
    }

    /// Emma asks about `value` and alice approves it.
    static func approve(_ value: String, on broker: BrokerHarness) async throws -> UUID {
        let asked = try #require(try await broker.ask(question([value])).reply.accepted).asked
        _ = try await broker.answer(asked.question.id, "approve", from: "alice")
        return asked.question.id
    }

    static func settle(_ store: BrokerStore) async throws {
        try await store.write { db in try BrokerStore.settleRecentKnownHandles(atLeast: 1, in: db) }
    }

    static func write<T: Sendable>(
        _ store: BrokerStore, _ work: @escaping @Sendable (any StorageWriter) throws -> T
    ) async throws -> T {
        try await store.transaction(work, committed: { _ in })
    }

    @Test func approvalsInEitherPartAreKnown() async throws {
        try await BrokerHarness.with { broker in
            let older = try await Self.approve("ann", on: broker)
            try await Self.settle(broker.store)
            let newer = try await Self.approve("ben", on: broker)
            #expect(try await Self.parts(broker.store) == (keyed: ["ann"], recent: ["ben"]))

            let both = [handle("ann"), handle("ben"), handle("cid")]
            let read = try await broker.store.reading { try $0.knownHandles(of: "emma", among: both) }
            #expect(read == [handle("ann"), handle("ben")], "a reader")
            let written = try await Self.write(broker.store) { try $0.knownHandles(of: "emma", among: both) }
            #expect(written == [handle("ann"), handle("ben")], "the writer")
            let approved = try await broker.store.reading { try $0.approvedHandles(of: "emma") }
            #expect(approved.map(\.handle) == [handle("ann"), handle("ben")])
            #expect(approved.map(\.question) == [older, newer])
            // Known in both parts: the ask is approved at once.
            let again = try #require(try await broker.ask(question(["ben", "ann"])).reply.accepted)
            #expect(again.resolution?.reason == .alreadyKnown)
        }
    }

    @Test func aHandleIsStoredOnceAcrossBothParts() async throws {
        try await BrokerHarness.with { broker in
            let store = broker.store
            _ = try await Self.approve("ann", on: broker)
            try await Self.settle(store)
            let added = try await Self.write(store) {
                try $0.addKnownHandles([handle("ann"), handle("ben")], child: "emma", question: nil)
            }
            #expect(added == [handle("ben")], "ann is known already, in the keyed part")
            #expect(
                try await Self.write(store) { try $0.addKnownHandles([handle("ben")], child: "emma", question: nil) }
                    .isEmpty, "ben is known already, in the recent part")
            // The store's own statement (the benchmarks' bulk writer) keeps the same rule.
            let byStore = try await store.write { db in
                try BrokerStore.addKnownHandles(
                    [handle("ann"), handle("ben"), handle("cid")], child: "emma", question: nil, in: db)
            }
            #expect(byStore == [handle("cid")])
            #expect(try await Self.parts(store) == (keyed: ["ann"], recent: ["ben", "cid"]))
            // Tim's handle of the same value is his own.
            let tims = try await Self.write(store) {
                try $0.addKnownHandles([handle("ann")], child: "tim", question: nil)
            }
            #expect(tims == [handle("ann")])
        }
    }

    @Test func theRecentPartMovesAtTheLimitInTheNextTransaction() async throws {
        try await BrokerHarness.with { broker in
            let store = broker.store
            let limit = BrokerStore.recentKnownHandleLimit
            try await store.write { db in
                for index in 0..<(limit - 1) {
                    try db.execute(
                        sql: "INSERT INTO known_handle_recent (child_id, kind, value) VALUES ('emma', ?, ?)",
                        arguments: [CommunicationHandle.Kind.custom.rawValue, String(format: "h%05d", index)])
                }
            }
            _ = try await Self.approve("zoe", on: broker)
            var parts = try await Self.parts(store)
            #expect(
                (parts.keyed.count, parts.recent.count) == (0, limit), "not moved in the transaction that filled it")
            _ = try await Self.approve("zz-next", on: broker)
            parts = try await Self.parts(store)
            #expect((parts.keyed.count, parts.recent) == (limit, ["zz-next"]))
            #expect(parts.keyed.last == "zoe")
            let known = try await broker.store.reading {
                try $0.knownHandles(of: "emma", among: [handle("h00000"), handle("zoe"), handle("zz-next")])
            }
            #expect(known.count == 3)
        }
    }

    @Test func aRemovalFindsEitherPart() async throws {
        try await BrokerHarness.with { broker in
            let store = broker.store
            _ = try await Self.approve("ann", on: broker)
            try await Self.settle(store)
            _ = try await Self.approve("ben", on: broker)
            let removed = try await Self.write(store) {
                try $0.removeKnownHandles([handle("ann"), handle("ben"), handle("cid")], child: "emma")
            }
            #expect(Set(removed) == [handle("ann"), handle("ben")])
            #expect(try await Self.parts(store) == (keyed: [], recent: []))
            let after = try await Self.write(store) { try $0.removeKnownHandles([handle("ann")], child: "emma") }
            #expect(after.isEmpty)
            // Approved again after its removal: stored again, in the recent part.
            _ = try await Self.approve("ann", on: broker)
            #expect(try await Self.parts(store) == (keyed: [], recent: ["ann"]))
        }
    }

    @Test func anOlderStoresApprovalsAreMigrated() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let approving = UUID()
        do {
            // The schema and rows as a broker before `v8-known-handle-recent` left them.
            let queue = try DatabaseQueue(path: temp.databasePath)
            try BrokerStore.migrator.migrate(queue, upTo: "v7-question-numbers")
            try await queue.write { db in
                for (value, question) in [("ann", approving.wireBytes), ("ben", nil)] {
                    try db.execute(
                        sql: "INSERT INTO known_handle (child_id, kind, value, question_id) VALUES ('emma', ?, ?, ?)",
                        arguments: [CommunicationHandle.Kind.custom.rawValue, value, question])
                }
            }
            try queue.close()
        }
        let broker = try await BrokerHarness(temp: temp)
        #expect(try await Self.parts(broker.store) == (keyed: ["ann", "ben"], recent: []))
        let approved = try await broker.store.reading { try $0.approvedHandles(of: "emma") }
        #expect(approved.map(\.handle) == [handle("ann"), handle("ben")])
        #expect(approved.map(\.question) == [approving, nil])
        let added = try await Self.write(broker.store) {
            try $0.addKnownHandles([handle("ben"), handle("cid")], child: "emma", question: nil)
        }
        #expect(added == [handle("cid")])
        #expect(try await Self.parts(broker.store) == (keyed: ["ann", "ben"], recent: ["cid"]))
    }
}
