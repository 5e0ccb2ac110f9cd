import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The SQLite store's family history (`BrokerStore+FamilyHistory`): new rows in a recent part by id, settled into the
/// index by child once `recentHistoryLimit` are there, read from both parts in order; older stores migrated.
@Suite("History layout")
struct HistoryLayoutTests {
    /// Settings changes for emma, one a minute: a history entry each (each differs from the one before).
    static func record(_ count: Int, from start: Int = 0, on broker: BrokerHarness) async throws {
        for index in start..<start + count {
            broker.clock.advance(by: 60)
            let settings = CommunicationSettings(enabled: index % 2 == 0, screenTime: .contactsAndGroups)
            _ = try await broker.send(.setLimits(childID: "emma", settings: settings), from: "alice")
        }
    }

    static func parts(_ store: BrokerStore) async throws -> (settled: Int, recent: Int) {
        try await store.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM history WHERE settled = 1") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM history WHERE settled = 0") ?? -1
            )
        }
    }

    /// Every page of emma's history in one order, `limit` at a time, following the cursor.
    static func pages(_ broker: BrokerHarness, limit: UInt32, newestFirst: Bool) async throws -> [[HistoryEntry]] {
        var query = HistoryQuery(childID: "emma", limit: limit, newestFirst: newestFirst)
        var pages: [[HistoryEntry]] = []
        while true {
            let (entries, next) = try await BrokerEngineHistoryTests.page(broker, query, as: "bob")
            pages.append(entries)
            guard let next, pages.count < 100 else { break }
            query.cursor = next
        }
        return pages
    }

    @Test func aHistoryInBothPartsIsReadInOrder() async throws {
        try await BrokerHarness.with { broker in
            try await Self.record(13, on: broker)
            try await broker.store.write { db in try BrokerStore.settleRecentHistory(atLeast: 1, in: db) }
            try await Self.record(12, from: 13, on: broker)
            #expect(try await Self.parts(broker.store) == (settled: 13, recent: 12))
            let all = try await Self.pages(broker, limit: 100, newestFirst: false).flatMap { $0 }
            #expect(all.count == 25)
            #expect(all.map(\.id) == all.map(\.id).sorted())
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.recordedAt < $1.recordedAt })
            for limit: UInt32 in [4, 10, 13] {
                let oldest = try await Self.pages(broker, limit: limit, newestFirst: false)
                #expect(oldest.flatMap { $0 } == all, "oldest first, \(limit) a page")
                #expect(oldest.dropLast().allSatisfy { $0.count == Int(limit) })
                let newest = try await Self.pages(broker, limit: limit, newestFirst: true)
                #expect(newest.flatMap { $0 } == all.reversed(), "newest first, \(limit) a page")
            }
            let since = try await BrokerEngineHistoryTests.page(
                broker, HistoryQuery(childID: "emma", limit: 5, since: all[10].recordedAt), as: "bob")
            #expect(since.entries == Array(all[10..<15]))
        }
    }

    @Test func recentRowsSettleAtTheLimitInTheNextTransaction() async throws {
        try await BrokerHarness.with { broker in
            try await Self.record(2, on: broker)
            let limit = BrokerStore.recentHistoryLimit
            try await broker.store.write { db in
                for _ in 0..<(limit - 2) {
                    try db.execute(
                        sql: """
                            INSERT INTO history (family_id, child_id, recorded_at, entry, settled)
                            SELECT family_id, child_id, recorded_at, entry, 0 FROM history ORDER BY id LIMIT 1
                            """)
                }
            }
            #expect(try await Self.parts(broker.store) == (settled: 0, recent: limit))
            try await Self.record(1, on: broker)
            #expect(try await Self.parts(broker.store) == (settled: limit, recent: 1))
            let newest = try await BrokerEngineHistoryTests.page(
                broker, HistoryQuery(childID: "emma", limit: 3, newestFirst: true), as: "bob")
            #expect(newest.entries.count == 3)
            #expect(newest.entries.map(\.id) == newest.entries.map(\.id).sorted(by: >))
        }
    }

    @Test func anOlderStoresHistoryIsMigratedAndReadable() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        var before: [HistoryEntry] = []
        do {
            let broker = try await BrokerHarness(temp: temp)
            try await Self.record(6, on: broker)
            before = try await Self.pages(broker, limit: 100, newestFirst: false).flatMap { $0 }
        }
        do {
            // Back to the schema as the broker left it before `v6-history-recent`, rows and all.
            let queue = try DatabaseQueue(path: temp.databasePath)
            try await queue.write { db in
                try db.execute(
                    sql: """
                        DROP INDEX history_by_child;
                        DROP INDEX history_recent;
                        ALTER TABLE history DROP COLUMN settled;
                        CREATE INDEX history_by_child ON history(child_id, id);
                        DELETE FROM grdb_migrations WHERE identifier = 'v6-history-recent';
                        """)
            }
            try queue.close()
        }
        let broker = try await BrokerHarness(temp: temp)
        #expect(try await Self.parts(broker.store) == (settled: 6, recent: 0))
        #expect(try await Self.pages(broker, limit: 100, newestFirst: false).flatMap { $0 } == before)
        try await Self.record(3, on: broker)
        #expect(try await Self.parts(broker.store) == (settled: 6, recent: 3))
        let after = try await Self.pages(broker, limit: 4, newestFirst: true).flatMap { $0 }
        #expect(after.count == 9)
        #expect(Array(after.suffix(6)) == before.reversed())
    }
}
