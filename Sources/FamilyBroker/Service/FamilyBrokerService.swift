import BrokerPostgres
public import Foundation
import HearthCore
public import HearthService
public import Logging
public import ServiceLifecycle
import ZeroMQ

/// The family-broker daemon: the composition root. `BrokerSockets` owns the sockets, the `Gate` decides who gets in,
/// `CommandIntake` turns frames into the `BrokerEngine`'s commands and its outcomes into replies, `AdminEndpoint`
/// serves the local admin socket.
public final class FamilyBrokerService: Service {
    public let options: BrokerOptions
    private let logger: Logger
    private let clock: @Sendable () -> Date

    private let health: BrokerHealth

    public init(options: BrokerOptions, logger: Logger, clock: @escaping @Sendable () -> Date = Date.init) {
        self.options = options
        self.logger = logger
        self.clock = clock
        self.health = BrokerHealth(heartbeatInterval: options.heartbeatInterval)
    }

    /// Ready once both sockets are bound and the database is open (the `/readyz` probe).
    public var readiness: HealthStatus { health.readiness }

    /// Alive while its heartbeat task runs (the `/healthz` probe).
    public var liveness: HealthStatus { health.liveness }

    public func run() async throws {
        let broker = try await Self.open(options: options, logger: logger, clock: clock, health: health)
        #if PostgreSQL
        // A cluster's broker takes its share of the partitions before it says it is ready.
        await broker.cluster?.keeper.round()
        #endif
        try broker.announce()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await broker.heartbeats() }
            group.addTask { await broker.sweeps() }
            group.addTask { await broker.storeProbes() }
            #if PostgreSQL
            if let cluster = broker.cluster {
                group.addTask { await cluster.keeper.run() }
                group.addTask { await cluster.listener.run() }
            }
            #endif
            await broker.serve()
            group.cancelAll()
        }
        #if PostgreSQL
        // The others take this broker's partitions at once rather than after a lease.
        await broker.cluster?.keeper.resign()
        #endif
        await broker.close()
    }
}
