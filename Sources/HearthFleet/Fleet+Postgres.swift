import Foundation
import HearthLab
import Synchronization

extension Fleet {
    /// The fleet's PostgreSQL server, when its spec is on `.postgres`.
    public var postgresServer: PostgresServer? { postgres.withLock { $0 } }

    /// For a spec on `.postgres`: starts a throwaway server and returns it with the broker arguments that point the
    /// broker at it (the password by file, never on the command line). Nothing for SQLite.
    static func startStore(_ spec: FleetSpec, mode: Mode) async throws -> (PostgresServer?, [String]) {
        guard spec.store == .postgres else { return (nil, []) }
        guard mode == .processes else { throw FleetError.notSupportedInProcess("store: postgres") }
        let server = try await PostgresServer.start()
        return (server, ["--store", server.url, "--store-password-file", server.passwordFile])
    }
}
