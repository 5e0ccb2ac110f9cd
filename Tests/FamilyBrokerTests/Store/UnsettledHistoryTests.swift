import Foundation
import GRDB
import HearthCore
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The writer's count of history rows not settled yet (`UnsettledHistory`): the rows' count through savepoints and
/// transactions that roll back, and the settling at `recentHistoryLimit` as the rows would decide it.
@Suite("Unsettled history")
struct UnsettledHistoryTests {
    let entry: HistoryEntry = {
        let asked = AskedQuestion(
            question: question(["x"]), childMemberID: "emma", appBundleID: "com.example.chat", askingDeviceID: "e1",
            askedAt: StorageContractTests.now)
        let resolution = Resolution(
            questionID: asked.question.id, choice: .approve, reason: .parentAnswered, answeredBy: "alice",
            resolvedAt: StorageContractTests.now)
        return HistoryEntry(asked: asked, resolution: resolution, deviceID: "p1")!
    }()

    func append(_ count: Int, to tx: any StorageWriter) throws {
        for _ in 0..<count { _ = try tx.appendHistory(entry, family: "f1") }
    }

    /// (the writer's count, the rows' count).
    func counts(_ store: BrokerStore) async throws -> (held: Int?, rows: Int) {
        (
            store.writerStatements.withLock { $0.unsettledHistory.known },
            try await HistoryLayoutTests.parts(store).recent
        )
    }

    @Test func theWritersCountIsTheRowsThroughSavepointsAndRollbacks() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        try await store.transaction(
            { tx in
                try append(2, to: tx)
                #expect(throws: ContractError.self) {
                    try tx.savepoint {
                        try append(3, to: tx)
                        throw ContractError()
                    }
                }
                try append(1, to: tx)
            }, committed: { _ in })
        #expect(try await counts(store) == (3, 3))
        await #expect(throws: ContractError.self) {
            try await store.transaction(
                { tx in
                    try append(1, to: tx)
                    throw ContractError()
                }, committed: { _ in })
        }
        #expect(try await counts(store) == (nil, 3), "forgotten with the transaction")
        try await store.transaction({ tx in try append(1, to: tx) }, committed: { _ in })
        #expect(try await counts(store) == (4, 4), "counted again, then kept")
    }

    @Test func rowsSettleAtTheLimitAsTheWriterCountsThem() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let limit = BrokerStore.recentHistoryLimit
        try await store.transaction({ tx in try append(limit - 1, to: tx) }, committed: { _ in })
        try await store.transaction({ tx in try append(1, to: tx) }, committed: { _ in })
        #expect(try await HistoryLayoutTests.parts(store) == (settled: 0, recent: limit), "settled at the start")
        try await store.transaction({ tx in try append(1, to: tx) }, committed: { _ in })
        #expect(try await HistoryLayoutTests.parts(store) == (settled: limit, recent: 1))
        #expect(try await counts(store) == (1, 1))
    }
}
