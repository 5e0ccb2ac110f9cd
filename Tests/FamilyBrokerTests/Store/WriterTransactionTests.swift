import Foundation
import GRDB
import GRDBSQLite
import HearthCore
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The writer's transaction on its prepared `BEGIN IMMEDIATE` and `COMMIT` (`WriterStatements+Transaction`): the same
/// two statements at every transaction, and nothing stored once SQLite has rolled the transaction back by itself.
@Suite("Writer transaction")
struct WriterTransactionTests {
    func asked(_ value: String) -> AskedQuestion {
        emmasQuestion(value)
    }

    func stored(_ questions: [AskedQuestion], _ store: BrokerStore) async throws -> [Bool] {
        try await store.reading { reader in try questions.map { try reader.question($0.question.id) != nil } }
    }

    /// What SQLite does inside a transaction after `SQLITE_FULL` or an I/O error: rolls it back by itself.
    func rollBackAsSQLiteWould(_ tx: any StorageWriter) throws {
        try #require(tx as? SQLiteTransaction).db.execute(sql: "ROLLBACK")
    }

    /// How many times the writer's connection ran each prepared statement of `sql` (none prepared: nil).
    func runs(of sql: String, _ store: BrokerStore) async throws -> Int? {
        try await store.write { db in
            var statement = sqlite3_next_stmt(db.sqliteConnection, nil)
            while let current = statement {
                if sqlite3_sql(current).map({ String(cString: $0) }) == sql {
                    return Int(sqlite3_stmt_status(current, SQLITE_STMTSTATUS_RUN, 0))
                }
                statement = sqlite3_next_stmt(db.sqliteConnection, current)
            }
            return nil
        }
    }

    @Test func everyTransactionRunsTheSamePreparedBeginAndCommit() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        for value in ["a", "b", "c"] {
            try await store.transaction({ tx in try tx.insert(asked(value), resolution: nil) }, committed: { _ in })
        }
        await #expect(throws: ContractError.self) {
            try await store.transaction({ _ in throw ContractError() }, committed: { _ in })
        }
        #expect(try await runs(of: "BEGIN IMMEDIATE TRANSACTION", store) == 4)
        #expect(try await runs(of: "COMMIT TRANSACTION", store) == 3, "not after the failed one")
    }

    @Test func noCommandRunsOnceSQLiteRolledTheTransactionBack() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let (first, second, third) = (asked("a"), asked("b"), asked("c"))
        let error = await #expect(throws: DatabaseError.self) {
            try await store.transaction(
                { tx in
                    try tx.unguarded { try tx.insert(first, resolution: nil) }
                    try rollBackAsSQLiteWould(tx)
                    // Each would otherwise run, and commit, on its own.
                    #expect(throws: DatabaseError.self) { try tx.unguarded { try tx.insert(second, resolution: nil) } }
                    #expect(throws: DatabaseError.self) { try tx.savepoint { try tx.insert(third, resolution: nil) } }
                }, committed: { _ in Issue.record("committed") })
        }
        #expect(error?.resultCode == .SQLITE_ABORT)
        #expect(try await stored([first, second, third], store) == [false, false, false])
        try await store.transaction({ tx in try tx.insert(second, resolution: nil) }, committed: { _ in })
        #expect(try await stored([first, second, third], store) == [false, true, false], "the next one commits")
    }

    @Test func aTransactionSQLiteRolledBackIsNotReportedCommitted() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let first = asked("a")
        let error = await #expect(throws: DatabaseError.self) {
            try await store.transaction(
                { tx in
                    try tx.insert(first, resolution: nil)
                    try rollBackAsSQLiteWould(tx)
                }, committed: { _ in Issue.record("committed") })
        }
        #expect(error?.resultCode == .SQLITE_ABORT, "as GRDB's transactions report it")
        #expect(try await stored([first], store) == [false])
        #expect(store.writerStatements.withLock { $0.questions.count } == 0, "the writer's memory of it goes too")
    }
}
