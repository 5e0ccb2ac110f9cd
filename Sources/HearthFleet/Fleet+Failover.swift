import Foundation
import HearthLab
import Synchronization

/// PostgreSQL's own failover under a cluster of brokers: a streaming standby of the fleet's server, and the one
/// address every broker reaches its database at (each broker's store relay) moved to it once promoted.
extension Fleet {
    /// Starts a streaming standby of the fleet's PostgreSQL server (`PostgresServer.startStandby`), removed on
    /// teardown.
    public func startStandby(synchronous: Bool, timeout: Duration = .seconds(60)) async throws -> PostgresServer {
        guard let primary = postgresServer else { throw FleetError("startStandby needs a fleet on PostgreSQL") }
        let standby = try await primary.startStandby(synchronous: synchronous, timeout: timeout)
        otherServers.withLock { $0.append(standby) }
        return standby
    }

    /// Points every broker's database address at `server` (a promoted standby): each broker's store relay connects
    /// new connections there and drops its live ones. `server` becomes the fleet's `postgresServer` (leases and
    /// owners are read from it); the previous one is still removed on teardown.
    public func moveStore(to server: PostgresServer) async {
        let previous = postgres.withLock { current in
            defer { current = server }
            return current
        }
        otherServers.withLock { servers in
            servers.removeAll { $0 === server }
            if let previous, previous !== server { servers.append(previous) }
        }
        for broker in brokers {
            for relay in broker.relays(.store) { await relay.retarget(to: server.port) }
        }
    }
}
