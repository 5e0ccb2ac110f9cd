import Foundation
import HearthLab
import Logging
import NIOPosix
import PostgresNIO
import Synchronization

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The throwaway PostgreSQL server of this test process (`PostgresServer`, started on first use and killed when the
/// process exits, whether tests passed or not), and a fresh database on it per test.
enum TestPostgres {
    /// The server, started once.
    static let server = Task<PostgresServer, any Error> {
        let server = try await PostgresServer.start()
        started.withLock { $0 = (server.dataDirectory, server.directory) }
        atexit { TestPostgres.killAtExit() }
        return server
    }

    private static let started = Mutex<(data: String, directory: String)?>(nil)

    /// Kills the server (as `PostgresServer.kill` does) and deletes its directory: `atexit` cannot wait on a task.
    static func killAtExit() {
        guard let paths = started.withLock({ $0 }) else { return }
        let pidFile = (try? String(contentsOfFile: paths.data + "/postmaster.pid", encoding: .utf8)) ?? ""
        if let pid = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) {
            kill(pid, SIGKILL)
            // Its backends leave once they notice it gone; give them a moment before their files go.
            for _ in 0..<100 where kill(pid, 0) == 0 { usleep(20_000) }
            usleep(100_000)
        }
        try? FileManager.default.removeItem(atPath: paths.directory)
    }

    /// At most this many test databases at once: each store holds up to two connections (three while a test opens
    /// it again), and the server takes 100.
    static let slots = TestSlots(20)

    /// A new, empty database on the server: its URL, the password, and how to drop it (which frees its slot).
    static func database() async throws -> (url: PostgresURL, password: String, drop: @Sendable () async -> Void) {
        try PostgresTier.require()
        await slots.acquire()
        do {
            let server = try await server.value
            let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            try await admin(server, "CREATE DATABASE \(name)")
            let url = PostgresURL(user: server.user, host: "127.0.0.1", port: server.port, database: name)
            return (
                url, server.password,
                {
                    try? await admin(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
                    await slots.release()
                }
            )
        } catch {
            await slots.release()
            throw error
        }
    }

    /// Runs one statement on the server's own database.
    static func admin(_ server: PostgresServer, _ sql: String) async throws {
        let configuration = PostgresConnection.Configuration(
            host: "127.0.0.1", port: server.port, username: server.user, password: server.password,
            database: server.database, tls: .disable)
        let connection = try await PostgresConnection.connect(
            configuration: configuration, id: 1, logger: Logger(label: "TestPostgres"))
        defer { Task { try? await connection.close() } }
        _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "TestPostgres"))
    }
}

/// A counting semaphore for tests.
actor TestSlots {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    func acquire() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
