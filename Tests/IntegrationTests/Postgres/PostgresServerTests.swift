import Foundation
import HearthFleet
import Testing

/// The throwaway PostgreSQL server that tests and fleets start for themselves (as `nobody` when run as root).
@Suite(
    "Throwaway PostgreSQL server", .serialized, .tags(.postgres), .enabled(if: PostgresTier.runs, PostgresTier.skipped))
struct PostgresServerTests {
    /// `SELECT 1` over TCP with the server's password, as a client would connect; the psql client's output.
    static func query(_ server: PostgresServer, _ sql: String) async throws -> (status: Int32, output: String) {
        // The password from the environment, as the broker takes it; never on a command line.
        try await ExecutableRun.run(
            path: "/usr/bin/psql",
            ["-h", "127.0.0.1", "-p", "\(server.port)", "-U", server.user, "-d", server.database, "-tAc", sql],
            environment: ["PGPASSWORD": server.password, "PGCONNECT_TIMEOUT": "5"])
    }

    @Test func startsAcceptsPasswordLoginSurvivesAKillAndIsRemoved() async throws {
        let server = try await PostgresServer.start()
        let directory = server.directory
        do {
            #expect(server.url == "postgres://hearth@127.0.0.1:\(server.port)/hearth")
            let first = try await Self.query(server, "SELECT 1")
            #expect(
                first.status == 0 && first.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(first)")
            #expect(try await Self.query(server, "CREATE TABLE t (v int); INSERT INTO t VALUES (7)").status == 0)

            // A wrong password is refused: the server really authenticates.
            let wrong = try await ExecutableRun.run(
                path: "/usr/bin/psql",
                ["-h", "127.0.0.1", "-p", "\(server.port)", "-U", "hearth", "-d", "hearth", "-c", "SELECT 1"],
                environment: ["PGPASSWORD": "not-it", "PGCONNECT_TIMEOUT": "5"])
            #expect(wrong.status != 0, "\(wrong.output)")

            // A crash keeps what was committed.
            try await server.kill()
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await Self.query(server, "SELECT 1").status != 0, "down after kill -9")
            try await server.startAgain()
            #expect(try await Self.query(server, "SELECT v FROM t").output.contains("7"), "\(server.recentLog())")

            try await server.stop()
            #expect(!server.isRunning)
            try await server.startAgain()
            #expect(try await Self.query(server, "SELECT v FROM t").output.contains("7"))
        } catch {
            await server.remove()
            throw error
        }
        await server.remove()
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    @Test func aSynchronousStandbyHasEveryCommitWhenPromoted() async throws {
        let primary = try await PostgresServer.start()
        var standby: PostgresServer?
        do {
            let replica = try await primary.startStandby(synchronous: true)
            standby = replica
            #expect(try await primary.query("SHOW synchronous_standby_names") == [[PostgresServer.standbyName]])
            #expect(try await replica.isInRecovery())
            _ = try await primary.query("CREATE TABLE t (v int); INSERT INTO t VALUES (7)")
            // Acknowledged, so already flushed on the standby: a crash of the primary right after loses nothing.
            try await primary.kill()
            try await replica.promote()
            #expect(try await !replica.isInRecovery())
            #expect(try await replica.query("SELECT v FROM t") == [["7"]], "\(replica.recentLog())")
            #expect(try await Self.query(replica, "INSERT INTO t VALUES (8)").status == 0, "writable over TCP")
        } catch {
            await standby?.remove()
            await primary.remove()
            throw error
        }
        await standby?.remove()
        await primary.remove()
    }
}
