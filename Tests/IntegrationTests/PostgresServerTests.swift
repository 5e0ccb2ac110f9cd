import Foundation
import HearthFleet
import Testing

/// The throwaway PostgreSQL server that tests and fleets start for themselves (as `nobody` when run as root).
@Suite("Throwaway PostgreSQL server", .serialized)
struct PostgresServerTests {
    /// `SELECT 1` over TCP with the server's password, as a client would connect; the psql client's output.
    static func query(_ server: PostgresServer, _ sql: String) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        process.arguments = [
            "-h", "127.0.0.1", "-p", "\(server.port)", "-U", server.user, "-d", server.database, "-tAc", sql,
        ]
        // The password from the environment, as the broker takes it; never on a command line.
        process.environment = ["PGPASSWORD": server.password, "PGCONNECT_TIMEOUT": "5"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
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
            let wrong = Process()
            wrong.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
            wrong.arguments = [
                "-h", "127.0.0.1", "-p", "\(server.port)", "-U", "hearth", "-d", "hearth", "-c", "SELECT 1",
            ]
            wrong.environment = ["PGPASSWORD": "not-it"]
            wrong.standardOutput = FileHandle.nullDevice
            wrong.standardError = FileHandle.nullDevice
            try wrong.run()
            wrong.waitUntilExit()
            #expect(wrong.terminationStatus != 0)

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
}
