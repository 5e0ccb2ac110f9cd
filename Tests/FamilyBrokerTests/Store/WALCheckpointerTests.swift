import Foundation
import GRDB
import Logging
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Who copies the write-ahead log back into the database file: the writer after a commit, or a thread of its own.
@Suite("WAL checkpointer")
struct WALCheckpointerTests {
    /// A WAL database whose connections report their commits to `checkpointer`, with a table to fill.
    private static func database(_ temp: TempDirectory, _ checkpointer: WALCheckpointer) throws -> DatabasePool {
        var config = Configuration()
        config.prepareDatabase { db in checkpointer.install(on: db) }
        let pool = try DatabasePool(path: temp.databasePath, configuration: config)
        try pool.write { db in try db.execute(sql: "CREATE TABLE filler (id INTEGER PRIMARY KEY, body BLOB NOT NULL)") }
        return pool
    }

    /// Commits `count` transactions of about four pages each (one 16 KiB row).
    private static func fill(_ pool: DatabasePool, commits count: Int) throws {
        for _ in 0..<count {
            try pool.write { db in try db.execute(sql: "INSERT INTO filler (body) VALUES (randomblob(16000))") }
        }
    }

    /// The log's length and how much of it is in the database file, as a passive checkpoint on a fresh connection
    /// finds it (copying whatever is left).
    private static func logState(_ temp: TempDirectory) throws -> (log: Int, checkpointed: Int) {
        let queue = try DatabaseQueue(path: temp.databasePath)
        defer { try? queue.close() }
        let result = try queue.inDatabase { db in try db.checkpoint(.passive) }
        return (result.walFrameCount, result.checkpointedFrameCount)
    }

    private static let logger = Logger(label: "WALCheckpointerTests")

    @Test func withoutItsThreadTheWriterCheckpointsAtItsLimitAndTheLogStartsOver() throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let checkpointer = WALCheckpointer(pagesPerPass: 8, writerPages: 64)
        let pool = try Self.database(temp, checkpointer)
        try Self.fill(pool, commits: 60)  // ~240 pages: past the writer's limit three times or more
        let counts = checkpointer.counts
        #expect(counts.writer >= 3)
        #expect(counts.background == 0)
        // The log started over after each writer checkpoint, so it never grew far past the limit.
        #expect(try Self.logState(temp).log < 64 + 8)
        try pool.close()
    }

    @Test func onceStartedPassesRunOnItsThreadAndTheWriterFindsLittleLeft() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let checkpointer = WALCheckpointer(pagesPerPass: 8, writerPages: 100_000)
        let pool = try Self.database(temp, checkpointer)
        try checkpointer.start(path: temp.databasePath, logger: Self.logger)
        try Self.fill(pool, commits: 40)  // ~160 pages
        var waited = 0
        while checkpointer.counts.background == 0 || checkpointer.uncheckpointedPages >= 8, waited < 500 {
            try await Task.sleep(for: .milliseconds(10))
            waited += 1
        }
        #expect(checkpointer.counts.background >= 1)
        #expect(checkpointer.counts.writer == 0)
        // The thread went on until less than a pass was left, without another commit to wake it.
        #expect(checkpointer.uncheckpointedPages < 8)
        let pass = try #require(try checkpointer.checkpoint())
        #expect(pass.checkpointedPages == pass.logPages)
        checkpointer.stop()
        try pool.close()
    }

    @Test func passesComeLessOftenUntilTheLogNearsTheWritersLimit() {
        let checkpointer = WALCheckpointer(pagesPerPass: 64, finalPagesPerPass: 8, writerPages: 256)
        // Far from the limit: a pass every 64 pages.
        #expect(!checkpointer.passDue(logPages: 100, checkpointedPages: 50))
        #expect(checkpointer.passDue(logPages: 100, checkpointedPages: 36))
        // Within 64 pages of it: every 8, so that the writer's checkpoint finds little left.
        #expect(checkpointer.passDue(logPages: 200, checkpointedPages: 192))
        #expect(!checkpointer.passDue(logPages: 200, checkpointedPages: 193))
        // Without a final interval, one interval throughout.
        let even = WALCheckpointer(pagesPerPass: 64, writerPages: 256)
        #expect(!even.passDue(logPages: 200, checkpointedPages: 192))
    }

    @Test func afterStopCommitsWakeNothingAndTheDataIsIntact() throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let checkpointer = WALCheckpointer(pagesPerPass: 4, writerPages: 100_000)
        let pool = try Self.database(temp, checkpointer)
        try checkpointer.start(path: temp.databasePath, logger: Self.logger)
        checkpointer.stop()
        checkpointer.stop()  // a second stop is harmless
        let before = checkpointer.counts
        try Self.fill(pool, commits: 20)
        #expect(checkpointer.counts == before)
        #expect(try checkpointer.checkpoint() == nil)
        #expect(try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM filler") } == 20)
        try pool.close()
    }

    @Test func aStoreWithBackgroundCheckpointsKeepsWhatItCommitted() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        do {
            let broker = try await BrokerHarness(temp: temp)
            try broker.store.startBackgroundCheckpoints(logger: Self.logger)
            for round in 1...20 { _ = try await broker.ask(question(["h\(round)"]), from: "nora") }
        }
        let reopened = try await BrokerHarness(temp: temp)
        #expect(try await reopened.store.storedHeads()["nora"] == 20)
    }
}
