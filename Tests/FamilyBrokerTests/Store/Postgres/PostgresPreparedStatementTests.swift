import Foundation
import HearthCore
import PostgresNIO
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The writer's hot statements (`HotStatements`) run as named prepared statements: prepared on every connection
/// before its first use, again after a connection was lost, sent in order with the unnamed statements around them,
/// and still usable after one of their executions failed.
@Suite("PostgreSQL prepared statements", .tags(.postgres))
struct PostgresPreparedStatementTests {
    let contract = StorageContractTests()

    /// The writer's backend and the statements prepared on its connection, read on that connection.
    static func writerPrepared(_ store: PostgresStore) throws -> (pid: Int32, names: Set<String>) {
        try store.writer.runBlocking { connection in
            let pid = try connection.result(of: "SELECT pg_backend_pid()", logger: quietLogger).rows
            let names = try connection.result(of: "SELECT name FROM pg_prepared_statements", logger: quietLogger).rows
            return (try pid[0].decode(Int32.self), Set(try names.map { try $0.decode(String.self) }))
        }
    }

    @Test func everyHotStatementIsPreparedOnANewConnectionAndAgainAfterTheConnectionWasLost() async throws {
        try await PostgresRoundTripTests().withStore { store in
            let hot = Set(HotStatements.all.map { $0.name })
            let first = try Self.writerPrepared(store)
            #expect(first.names.isSuperset(of: hot))
            try await store.reader.run { connection in
                _ = try connection.result(of: "SELECT pg_terminate_backend(\(first.pid))", logger: quietLogger)
            }
            // The first call after the server ended the session may find it gone (StoreUnavailable); a later one
            // opens a new connection.
            var second: (pid: Int32, names: Set<String>)?
            for _ in 0..<50 where second == nil {
                second = try? Self.writerPrepared(store)
                if second == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            let reopened = try #require(second)
            #expect(reopened.pid != first.pid, "a new session")
            #expect(reopened.names.isSuperset(of: hot), "prepared before any transaction used them")
            let asked = contract.asked(["pal"])
            try await store.transaction(
                { (tx) throws in try tx.savepoint { try tx.insert(asked, resolution: nil) } }, committed: { _ in })
            #expect(try await store.reading { try $0.question(asked.question.id)?.asked } == asked)
        }
    }

    /// A hot statement sent without waiting (the question's insert) runs before an unnamed query sent after it:
    /// the query sees its row.
    @Test func aHotStatementSentWithoutWaitingRunsBeforeTheQueriesSentAfterIt() async throws {
        try await PostgresRoundTripTests().withStore { store in
            let questions = (0..<30).map { contract.asked(["pal\($0)"]) }
            let seen = try await store.transaction(
                { writer in
                    guard let tx = writer as? PostgresTransaction else { throw NotPostgres() }
                    return try questions.map { asked in
                        try tx.savepoint {
                            try tx.insert(asked, resolution: nil)
                            let id = asked.question.id
                            return try tx.rows("SELECT count(*) FROM question WHERE id = \(id)")[0].decode(Int.self)
                        }
                    }
                }, committed: { _ in })
            #expect(seen == Array(repeating: 1, count: questions.count))
        }
    }

    /// The same hot statement fails in one command (a question id already stored) and runs again in the next: its
    /// failure reaches the command as the server's error, and the statement stays prepared.
    @Test func aHotStatementThatFailedInACommandRunsAgainInTheNext() async throws {
        try await PostgresRoundTripTests().withStore { store in
            let (first, second) = (contract.asked(["one"]), contract.asked(["two"]))
            // The error is caught on the writer's queue and checked here (an expectation there is outside the test).
            let refused = try await store.transaction(
                { tx in
                    try tx.savepoint { try tx.insert(first, resolution: nil) }
                    var refused: (any Error)?
                    do {
                        try tx.savepoint { try tx.insert(first, resolution: nil) }
                    } catch {
                        refused = error
                    }
                    try tx.savepoint { try tx.insert(second, resolution: nil) }
                    return refused.map { "\(type(of: $0))" }
                }, committed: { _ in })
            #expect(refused == "\(PSQLError.self)", "the id is taken: the server's error")
            #expect(try await store.reading { try $0.question(second.question.id)?.asked } == second)
            #expect(try await store.reading { try $0.question(first.question.id)?.asked } == first)
        }
    }
}
