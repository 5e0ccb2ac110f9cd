import Foundation
public import HearthFleet
import HearthTransport
import ZeroMQ

/// A server the load test started for itself: a broker in a fleet of its own, or the raw relay; stops it after.
public final class LaunchedServer: Sendable {
    public let target: LoadTarget
    /// Where each device's `<device>.key` is.
    public let keysDirectory: String
    private let fleet: Fleet?
    private let relay: DaemonProcess?
    private let relayDirectory: String?
    /// The broker's PostgreSQL server, when it runs on one.
    public let postgres: PostgresServer?

    private init(
        target: LoadTarget, keysDirectory: String, fleet: Fleet?, relay: DaemonProcess?, relayDirectory: String?,
        postgres: PostgresServer? = nil
    ) {
        self.target = target
        self.keysDirectory = keysDirectory
        self.fleet = fleet
        self.relay = relay
        self.relayDirectory = relayDirectory
        self.postgres = postgres
    }

    /// The PostgreSQL server's postmaster, whose backends do the broker's queries.
    public var databasePID: Int32? {
        guard let postgres,
            let text = try? String(contentsOfFile: postgres.dataDirectory + "/postmaster.pid", encoding: .utf8)
        else { return nil }
        return text.split(separator: "\n").first.flatMap { Int32($0) }
    }

    /// A `family-broker` enrolling `shape`'s families with freshly made keys, durable settings (its defaults).
    /// `prepare` runs on the state directory before the broker starts (e.g. to store a history).
    /// On `.postgres`, the broker's store is a throwaway PostgreSQL server of its own, removed by `stop()`.
    public static func broker(
        _ shape: LoadShape, arguments: [String] = [], store: FleetSpec.Store = .sqlite,
        prepare: (@Sendable (_ stateDirectory: String) async throws -> Void)? = nil
    ) async throws -> LaunchedServer {
        // Last value wins for repeated options: quiet logs, the default heartbeat, and no per-child ask limit or
        // per-device command rate (a simulated device sends far more than a person's), unless the caller says otherwise.
        let defaults = [
            "--log-level", "warning", "--heartbeat", "2", "--ask-limit", "1000000000/1", "--device-rate", "100000",
        ]
        let postgres = store == .postgres ? try await PostgresServer.start() : nil
        let storeArguments = postgres.map { ["--store", $0.url, "--store-password-file", $0.passwordFile] } ?? []
        let fleet: Fleet
        do {
            fleet = try Fleet.prepare(
                shape.fleetSpec(), brokerArguments: defaults + storeArguments + arguments, deviceDaemons: false)
        } catch {
            await postgres?.remove()
            throw error
        }
        do {
            try await prepare?(fleet.directory + "/broker")
            try await fleet.start(timeout: .seconds(120))
            let target = try LoadTarget.fromReadyFile(fleet.readyFile, kind: .broker)
            return LaunchedServer(
                target: target, keysDirectory: fleet.directory + "/keys", fleet: fleet, relay: nil, relayDirectory: nil,
                postgres: postgres)
        } catch {
            await fleet.shutdown()
            await postgres?.remove()
            throw error
        }
    }

    /// The raw relay (`hearth-loadtest relay`), run as a process of its own like the broker.
    public static func relay(executable: String, curve: Bool, keysDirectory: String) async throws -> LaunchedServer {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-relay-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let ready = root + "/relay.ready.json"
        let process = DaemonProcess(
            name: "raw relay", executable: executable,
            arguments: ["relay", "--ready", ready] + (curve ? [] : ["--no-curve"]), logFile: root + "/relay.log")
        try process.start()
        let deadline = ContinuousClock.now + .seconds(20)
        while !FileManager.default.fileExists(atPath: ready) {
            guard ContinuousClock.now < deadline, process.isRunning else {
                await process.stop()
                throw LoadError("the relay did not start: \(process.recentLog())")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let target = try LoadTarget.fromReadyFile(ready, kind: .relay)
        return LaunchedServer(
            target: target, keysDirectory: keysDirectory, fleet: nil, relay: process, relayDirectory: root)
    }

    /// The devices' keys, from their key files.
    public func families(_ shape: LoadShape) throws -> [SimulatedFamily] {
        try SimulatedFamily.make(shape, families: 0..<shape.families) { device in
            try KeyFiles.loadPair(secretPath: keysDirectory + "/" + device + ".key")
        }
    }

    public func stop() async {
        await fleet?.shutdown()
        await postgres?.remove()
        await relay?.stop()
        if let relayDirectory { try? FileManager.default.removeItem(atPath: relayDirectory) }
    }
}
