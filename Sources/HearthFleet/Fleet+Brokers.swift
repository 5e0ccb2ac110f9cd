import Foundation
import HearthCore
import HearthLab
import HearthTransport
import Synchronization
import ZeroMQ

/// A fleet of several brokers on one PostgreSQL server (`FleetSpec.brokers` > 1), and their faults: kill (-9),
/// pause (SIGSTOP) and continue, restart, cut from the devices or from PostgreSQL, and a broker joining.
extension Fleet {
    /// The brokers of a fleet of several, in order (`broker-1` first); empty for a fleet of one broker.
    public var brokers: [FleetBroker] { cluster.withLock { $0 } }

    /// Broker `number` (1-based) of a fleet of several.
    public func broker(_ number: Int) throws -> FleetBroker {
        let brokers = brokers
        guard brokers.indices.contains(number - 1) else {
            throw FleetError("no broker \(number) in this fleet (it has \(brokers.count) of a cluster)")
        }
        return brokers[number - 1]
    }

    /// Kills broker `number` with SIGKILL; it stays down until `restartBroker(_:)`.
    public func killBroker(_ number: Int) async throws {
        try await broker(number).daemon.crash()
    }

    /// Freezes broker `number` (SIGSTOP) with its connections open: its leases run out while it cannot tell.
    public func pauseBroker(_ number: Int) throws {
        try broker(number).daemon.pause()
    }

    /// Lets a paused broker run again (SIGCONT).
    public func continueBroker(_ number: Int) throws {
        try broker(number).daemon.resume()
    }

    /// Stops broker `number` gracefully if it runs, and starts it again on the same ports, key and state.
    public func restartBroker(_ number: Int, timeout: Duration = .seconds(30)) async throws {
        let broker = try broker(number)
        await broker.daemon.stop()
        try await broker.start(timeout: timeout)
    }

    /// Cuts broker `number` off its devices, its PostgreSQL server, or both: live connections drop and new ones are
    /// refused until `restoreBroker(_:_:)`. The broker keeps running.
    public func cutBroker(_ number: Int, from link: FleetBroker.Link = .all) async throws {
        for relay in try broker(number).relays(link) { await relay.cut() }
    }

    /// Blackholes broker `number`'s links to its devices, its PostgreSQL server, or both: connections stay open but
    /// no byte passes either way (a network partition that drops packets) until `restoreBroker(_:_:)`.
    public func blackholeBroker(_ number: Int, from link: FleetBroker.Link = .all) throws {
        for relay in try broker(number).relays(link) { relay.blackhole() }
    }

    /// Lets a cut or blackholed broker be reached again.
    public func restoreBroker(_ number: Int, _ link: FleetBroker.Link = .all) throws {
        for relay in try broker(number).relays(link) { relay.restore() }
    }

    /// Starts one more broker on the fleet's PostgreSQL server (a broker joining the cluster); devices are not told of
    /// it: they reach it when a broker of their list redirects them there.
    @discardableResult
    public func addBroker(timeout: Duration = .seconds(30)) async throws -> FleetBroker {
        guard let server = postgresServer, let template = clusterTemplate.withLock({ $0 }) else {
            throw FleetError("addBroker needs a fleet of several brokers on PostgreSQL")
        }
        let broker = try await Self.makeBroker(number: brokers.count + 1, template: template, server: server)
        cluster.withLock { $0.append(broker) }
        try await broker.start(timeout: timeout)
        return broker
    }

    /// Starts every broker of the cluster, one after the other (each waits for its ready file).
    func startCluster(timeout: Duration) async throws {
        for broker in brokers { try await broker.start(timeout: timeout) }
    }

    /// What every broker of a cluster shares: where the fleet lives and the extra command-line arguments.
    struct ClusterTemplate: Sendable {
        var root: String
        var arguments: [String]
    }

    /// Makes the brokers of `spec` (nothing runs yet) and their device ready files, which `devices` read.
    func makeCluster(_ spec: FleetSpec, server: PostgresServer, arguments: [String]) async throws {
        let template = ClusterTemplate(root: directory, arguments: arguments)
        clusterTemplate.withLock { $0 = template }
        for number in 1...spec.brokers {
            let broker = try await Self.makeBroker(number: number, template: template, server: server)
            cluster.withLock { $0.append(broker) }
        }
    }

    /// The ready file of broker `number` that devices read (its relays' endpoints and public key).
    static func clusterReadyFile(root: String, number: Int) -> String { root + "/run/broker-\(number).json" }

    private static func makeBroker(
        number: Int, template: ClusterTemplate, server: PostgresServer
    ) async throws -> FleetBroker {
        let root = template.root
        let state = root + "/broker-\(number)"
        try FileManager.default.createDirectory(
            atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let keys = try KeyFiles.generate(at: root + "/keys/broker-\(number)")
        let ports = (try LoopbackPort.free(), try LoopbackPort.free())
        let ingress = try await TCPRelay.start(upstreamPort: ports.0)
        let egress = try await TCPRelay.start(upstreamPort: ports.1)
        let store = try await TCPRelay.start(upstreamPort: server.port)
        let ready = RelayedReady(ingress: ingress.endpoint, egress: egress.endpoint, publicKey: keys.publicKey)
        let readyFile = clusterReadyFile(root: root, number: number)
        try JSONEncoder().encode(ready).write(to: URL(fileURLWithPath: readyFile), options: .atomic)
        let name = "broker-\(number)"
        var arguments = ["--state", state, "--families", root + "/families.yaml"]
        arguments += ["--key-file", root + "/keys/\(name).key", "--broker-name", name]
        arguments += ["--ingress", "tcp://127.0.0.1:\(ports.0)", "--egress", "tcp://127.0.0.1:\(ports.1)"]
        arguments += ["--advertise-ingress", ingress.endpoint, "--advertise-egress", egress.endpoint]
        arguments += ["--heartbeat", "0.5", "--log-level", "debug", "--clock-file", root + "/clock"]
        arguments += ["--store", "postgres://\(server.user)@127.0.0.1:\(store.port)/\(server.database)"]
        arguments += ["--store-password-file", server.passwordFile]
        let daemon = DaemonProcess(
            name: "family-broker \(name)", executable: try BinaryLocator.directory() + "/family-broker-lab",
            arguments: arguments + template.arguments, environment: [:], logFile: root + "/logs/\(name).log")
        return FleetBroker(
            number: number, stateDirectory: state, deviceReadyFile: readyFile, publicKey: keys.publicKey,
            relays: (ingress, egress, store), daemon: daemon)
    }
}
