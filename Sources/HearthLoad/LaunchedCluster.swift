import Foundation
public import HearthFleet
import HearthTransport

/// Brokers the load test started for itself on one PostgreSQL server (a fleet of several brokers with no device
/// daemons), and which of them owns each simulated family: the simulated devices connect straight to the owner.
public final class LaunchedCluster: Sendable {
    public let fleet: Fleet
    public let partitions: Int

    private init(fleet: Fleet, partitions: Int) {
        self.fleet = fleet
        self.partitions = partitions
    }

    /// `brokers` family-broker processes enrolling `shape`'s families, with the load test's usual broker defaults;
    /// returns once every partition has an owner and each broker holds its share.
    public static func start(
        _ shape: LoadShape, brokers: Int, partitions: Int, arguments: [String] = [],
        progress: (@Sendable (String) -> Void)? = nil
    ) async throws -> LaunchedCluster {
        var spec = shape.fleetSpec()
        spec.store = .postgres
        spec.brokers = brokers
        let defaults = [
            "--log-level", "warning", "--heartbeat", "2", "--ask-limit", "1000000000/1", "--device-rate", "100000",
            "--partitions", "\(partitions)",
        ]
        let fleet = try await Fleet.launch(
            spec, brokerArguments: defaults + arguments, timeout: .seconds(120), deviceDaemons: false)
        let cluster = LaunchedCluster(fleet: fleet, partitions: partitions)
        do {
            try await cluster.waitBalanced(brokers: brokers, progress: progress)
        } catch {
            await fleet.shutdown()
            throw error
        }
        return cluster
    }

    /// Each partition's owner (a broker's number), from the lease table.
    public func owners() async throws -> [Int: Int] {
        try await fleet.leaseOwners().mapValues(\.number)
    }

    private func waitBalanced(brokers: Int, progress: (@Sendable (String) -> Void)?) async throws {
        let share = (partitions + brokers - 1) / brokers
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            let owners = try await owners()
            let counts = Dictionary(grouping: owners.values, by: { $0 }).mapValues(\.count)
            if owners.count == partitions, counts.count == brokers, counts.values.allSatisfy({ $0 <= share }) {
                progress?(
                    "partitions settled: \(counts.sorted { $0.key < $1.key }.map { "broker-\($0.key) \($0.value)" })")
                return
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        throw LoadError("the cluster's partitions did not settle within 120 s:\n\(fleet.logs())")
    }

    /// The simulated families grouped by the broker that owns them, with that broker as the target (its own bound
    /// endpoints, from its ready file; not the fleet's relays).
    public func assignments(
        _ shape: LoadShape
    ) async throws -> [(broker: FleetBroker, target: LoadTarget, families: [SimulatedFamily])] {
        let owners = try await owners()
        let keys = fleet.directory + "/keys/"
        var byBroker: [Int: [SimulatedFamily]] = [:]
        for f in 0..<shape.families {
            guard let owner = owners[fleet.partition(of: "f\(f)")] else {
                throw LoadError("family f\(f) has no owner")
            }
            byBroker[owner, default: []] += try SimulatedFamily.make(shape, families: f..<(f + 1)) { device in
                try KeyFiles.loadPair(secretPath: keys + device + ".key")
            }
        }
        return try fleet.brokers.compactMap { broker in
            guard let families = byBroker[broker.number] else { return nil }
            return (broker, try LoadTarget.fromReadyFile(broker.readyFile, kind: .broker), families)
        }
    }

    /// The PostgreSQL server's postmaster, whose backends do the brokers' queries.
    public var databasePID: Int32? {
        guard let postgres = fleet.postgresServer,
            let text = try? String(contentsOfFile: postgres.dataDirectory + "/postmaster.pid", encoding: .utf8)
        else { return nil }
        return text.split(separator: "\n").first.flatMap { Int32($0) }
    }

    public func stop() async { await fleet.shutdown() }
}
