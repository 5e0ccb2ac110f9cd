import ChildDevice
public import DeclaredAgeRange
import DeviceRuntime
import FamilyBroker
import FamilyFileYAML
import Foundation
import HearthClient
public import HearthCore
import HearthLab
import HearthProtocol
import HearthService
import HearthTransport
import Logging
import ParentDevice
public import PermissionKit
import Synchronization
import ZeroMQ

/// A broker and its devices' daemons, each a real process over real ZeroMQ sockets (or, for speed, the same services
/// inside the test process), in a temporary directory with generated keys and free ports. Each device reaches the
/// broker through its own `TCPRelay`, so a test can cut it off; the broker's clock is an `OffsetClock` the test can
/// advance. Script it from a test; `shutdown()` leaves no process, port or file behind.
public final class Fleet: Sendable {
    /// Where the daemons run.
    public enum Mode: String, Sendable, Codable {
        /// Each daemon is a separate process (the executables `family-broker-lab`, `child-device`, `parent-device`).
        case processes
        /// The same services run inside the calling process: faster to start; `pause`/`resume` are not supported and
        /// `crash` is a graceful stop (see `InProcessDaemon`).
        case inProcess
    }

    /// The fleet's temporary directory: keys, state, sockets and logs.
    public let directory: String
    public let mode: Mode
    public let broker: any FleetDaemon
    /// Device daemons by device id.
    public let devices: [DeviceID: any FleetDaemon]
    /// The member each device belongs to.
    public let owners: [DeviceID: MemberID]
    private let sockets: [DeviceID: String]
    private let makeBroker: @Sendable (_ ingress: String, _ egress: String) -> any FleetDaemon
    private let shutDown = Mutex(false)
    let relays = Mutex<[DeviceID: (ingress: TCPRelay, egress: TCPRelay)]>([:])
    let clockOffset = Mutex<TimeInterval>(0)
    /// The fleet's PostgreSQL server, for a spec on `.postgres`: removed on teardown.
    let postgres = Mutex<PostgresServer?>(nil)
    /// Every other PostgreSQL server of the fleet (standbys, a primary failed over from): removed on teardown.
    let otherServers = Mutex<[PostgresServer]>([])
    /// The brokers of a fleet of several (`FleetSpec.brokers` > 1), and what a joining one shares with them.
    let cluster = Mutex<[FleetBroker]>([])
    let clusterTemplate = Mutex<ClusterTemplate?>(nil)

    /// How long a fleet's start waits by default. Long: a test process that runs in-process fleets beside hundreds of
    /// other tests can leave a broker's start waiting for a thread.
    public static let startTimeout: Duration = .seconds(60)

    /// Launches the broker and one daemon per device, and waits until every device is linked.
    /// `brokerArguments` are added to the broker's command line (`family-broker-lab`: family-broker's flags and the
    /// lab's hooks, e.g. `["--subscriber-hwm", "10"]` or `["--commit-delay-file", path]`); in-process,
    /// only `--heartbeat` and `--subscriber-hwm` are understood. With `deviceDaemons` false only the brokers run (the
    /// devices' key files are written), for programs that speak the protocol themselves.
    public static func launch(
        _ spec: FleetSpec, mode: Mode = .processes, brokerArguments: [String] = [],
        timeout: Duration = Fleet.startTimeout,
        deviceDaemons: Bool = true
    ) async throws -> Fleet {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-fleet-\(UUID().uuidString.prefix(8))"
        ).path
        let fleet: Fleet
        guard spec.brokers == 1 || (spec.store == .postgres && mode == .processes) else {
            throw FleetError("a fleet of \(spec.brokers) brokers needs store: postgres and processes")
        }
        let (server, storeArguments) = try await startStore(spec, mode: mode)
        do {
            fleet = try make(
                spec, mode: mode, root: root,
                brokerArguments: brokerArguments + (spec.brokers > 1 ? [] : storeArguments),
                deviceDaemons: deviceDaemons)
        } catch {
            try? FileManager.default.removeItem(atPath: root)
            await server?.remove()
            throw error
        }
        fleet.postgres.withLock { $0 = server }
        if spec.brokers > 1, let server {
            do {
                try await fleet.makeCluster(spec, server: server, arguments: brokerArguments)
            } catch {
                await fleet.shutdown()
                throw error
            }
        }
        try await fleet.start(timeout: timeout)
        return fleet
    }

    /// Writes the keys (`keys/<device>.key`), the family file and the daemons' command lines, and starts nothing:
    /// a caller can fill the broker's state (`broker/`) before `start`. With `deviceDaemons` false only the broker is
    /// run, for programs that speak the protocol to it themselves (load generators) with the devices' key files.
    public static func prepare(
        _ spec: FleetSpec, brokerArguments: [String] = [], deviceDaemons: Bool = true
    ) throws -> Fleet {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-fleet-\(UUID().uuidString.prefix(8))"
        ).path
        do {
            return try make(
                spec, mode: .processes, root: root, brokerArguments: brokerArguments, deviceDaemons: deviceDaemons)
        } catch {
            try? FileManager.default.removeItem(atPath: root)
            throw error
        }
    }

    /// Starts a made fleet: the broker, then every device daemon, and waits until each is linked. On failure the
    /// fleet is shut down and the error carries the daemons' logs.
    public func start(timeout: Duration = Fleet.startTimeout) async throws {
        do {
            if brokers.isEmpty {
                try await startBroker(timeout: timeout)
            } else {
                try await startCluster(timeout: timeout)
            }
            for device in devices.values { try await device.start() }
            try await waitUntilAllLinked(timeout: timeout)
        } catch {
            let logs = logs()
            await shutdown()
            // A cancelled start is the caller's doing, not a fault of the fleet: it stays a cancellation.
            if error is CancellationError { throw error }
            throw FleetError("fleet did not start: \(error)", logs: logs)
        }
    }

    /// Writes keys and the family file under `root` and makes (without starting) every daemon.
    private static func make(
        _ spec: FleetSpec, mode: Mode, root: String, brokerArguments: [String], deviceDaemons: Bool = true
    ) throws -> Fleet {
        let fm = FileManager.default
        for sub in ["keys", "logs", "run", "broker", "devices"] {
            try fm.createDirectory(
                atPath: root + "/" + sub, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        var file = FamilyFile(families: [], unaffiliated: [])
        var owners: [DeviceID: MemberID] = [:]
        var roles: [DeviceID: MemberRole] = [:]
        func entry(_ member: FleetSpec.Member) throws -> FamilyFile.Member {
            var devices: [FamilyFile.Device] = []
            for device in member.devices {
                guard owners[device] == nil else { throw FleetError("device '\(device)' is declared twice") }
                let keys = try KeyFiles.generate(at: root + "/keys/" + device)
                devices.append(.init(id: device, publicKey: keys.publicKey))
                owners[device] = member.id
                roles[device] = member.role
            }
            return FamilyFile.Member(
                id: member.id, name: member.id, role: member.role.name,
                birthDate: member.birthDate.isEmpty ? nil : member.birthDate,
                region: member.region,
                communicationLimits: member.communicationLimits, devices: devices, ageAssurance: member.ageAssurance)
        }
        for family in spec.families {
            file.families.append(
                .init(
                    id: family.id, name: family.id, members: try family.members.map(entry),
                    questionLifetime: family.questionLifetime, questionReminder: family.questionReminder))
        }
        file.unaffiliated = try spec.unaffiliated.map(entry)
        // Yams' encoder slows down faster than linearly with the document (minutes at 100,000 families); a JSON
        // document is YAML too (flow style), and the broker reads it the same way.
        let json = JSONEncoder()
        json.outputFormatting = .withoutEscapingSlashes
        let text = spec.families.count > 1000 ? String(decoding: try json.encode(file), as: UTF8.self) : try file.yaml()
        try text.write(toFile: root + "/families.yaml", atomically: true, encoding: .utf8)
        let clockFile = root + "/clock"
        try OffsetClock.write(offset: 0, to: clockFile)

        var sockets: [DeviceID: String] = [:]
        for device in roles.keys { sockets[device] = root + "/run/\(device).sock" }
        let (makeBroker, devices) =
            switch mode {
            case .processes:
                try processDaemons(
                    roles: deviceDaemons ? roles : [:], sockets: sockets, root: root, clockFile: clockFile,
                    brokerArguments: brokerArguments, brokers: spec.brokers)
            case .inProcess:
                try inProcessDaemons(
                    roles: roles, sockets: sockets, root: root, clockFile: clockFile, brokerArguments: brokerArguments)
            }
        return Fleet(
            directory: root, mode: mode, broker: makeBroker("tcp://127.0.0.1:0", "tcp://127.0.0.1:0"),
            makeBroker: makeBroker,
            devices: devices, owners: owners, sockets: sockets)
    }

    typealias BrokerMaker = @Sendable (String, String) -> any FleetDaemon

    /// The broker and device daemons as processes of the package's executables: the broker is `family-broker-lab`,
    /// whose `--clock-file` is how `advanceClock(by:)` reaches it.
    private static func processDaemons(
        roles: [DeviceID: MemberRole], sockets: [DeviceID: String], root: String, clockFile: String,
        brokerArguments: [String], brokers: Int
    ) throws -> (BrokerMaker, [DeviceID: any FleetDaemon]) {
        let bin = try BinaryLocator.directory()
        // Several brokers: every device is given all of them, in the same order.
        let list = (1...max(1, brokers)).map { clusterReadyFile(root: root, number: $0) }.joined(separator: ", ")
        let makeBroker: BrokerMaker = { ingress, egress in
            DaemonProcess(
                name: "family-broker", executable: bin + "/family-broker-lab",
                arguments: [
                    "--state", root + "/broker", "--families", root + "/families.yaml", "--ingress", ingress,
                    "--egress", egress, "--heartbeat", "0.5", "--log-level", "debug", "--clock-file", clockFile,
                ] + brokerArguments,
                environment: [:], logFile: root + "/logs/family-broker.log")
        }
        var devices: [DeviceID: any FleetDaemon] = [:]
        for (device, role) in roles {
            let kind = role == .child ? "child-device" : "parent-device"
            devices[device] = DaemonProcess(
                name: "\(kind) \(device)", executable: bin + "/" + kind,
                arguments: [
                    "--key-file", root + "/keys/\(device).key", "--state", root + "/devices/\(device)",
                    "--socket", sockets[device]!, "--log-level", "debug",
                ]
                    + (brokers > 1
                        ? ["--brokers", list] : ["--broker-ready", relayReadyFile(root: root, device: device)]),
                environment: [:], logFile: root + "/logs/\(device).log")
        }
        return (makeBroker, devices)
    }

    /// The broker and device daemons in this process, built by the daemons' own factories.
    private static func inProcessDaemons(
        roles: [DeviceID: MemberRole], sockets: [DeviceID: String], root: String, clockFile: String,
        brokerArguments: [String]
    ) throws -> (BrokerMaker, [DeviceID: any FleetDaemon]) {
        let settings = try InProcessBrokerSettings(arguments: brokerArguments)
        let clock = OffsetClock(path: clockFile)
        let makeBroker: BrokerMaker = { ingress, egress in
            InProcessDaemon(name: "family-broker", label: "family-broker", logFile: root + "/logs/family-broker.log") {
                logger in
                let options = BrokerOptions(
                    ingress: ingress, egress: egress, stateDirectory: root + "/broker",
                    familyFile: root + "/families.yaml",
                    heartbeatInterval: settings.heartbeat, subscriberHighWaterMark: settings.subscriberHighWaterMark)
                return FamilyBrokerService(options: options, logger: logger, clock: clock.now)
            }
        }
        var devices: [DeviceID: any FleetDaemon] = [:]
        for (device, role) in roles {
            let kind = role == .child ? "child-device" : "parent-device"
            let socket = sockets[device]!
            devices[device] = InProcessDaemon(
                name: "\(kind) \(device)", label: kind, logFile: root + "/logs/\(device).log"
            ) { logger in
                guard let data = FileManager.default.contents(atPath: relayReadyFile(root: root, device: device)),
                    let ready = try? JSONDecoder().decode(RelayedReady.self, from: data)
                else { throw FleetError("no broker endpoints for \(device) yet: start the broker first") }
                let options = DeviceOptions(
                    brokerIngress: ready.ingress, brokerEgress: ready.egress, brokerPublicKey: ready.publicKey,
                    secretKeyFile: root + "/keys/\(device).key", stateDirectory: root + "/devices/\(device)",
                    localSocket: socket)
                // The daemons' own factories: in-process runs what the executables run.
                return role == .child
                    ? try ChildDeviceDaemon.make(options: options, logger: logger)
                    : try ParentDeviceDaemon.make(options: options, logger: logger)
            }
        }
        return (makeBroker, devices)
    }

    /// The ready file a device reads: its relays' endpoints and the broker's public key.
    static func relayReadyFile(root: String, device: DeviceID) -> String { root + "/run/\(device).broker.json" }

    /// Launches a fleet, runs `body` with it, and shuts it down whether `body` returns or throws: no process or file
    /// is left behind by a failing test.
    public static func with<T>(
        _ spec: FleetSpec, mode: Mode = .processes, brokerArguments: [String] = [],
        timeout: Duration = Fleet.startTimeout,
        _ body: (Fleet) async throws -> T
    ) async throws -> T {
        await FleetSlots.shared.acquire()
        let fleet: Fleet
        do {
            fleet = try await launch(spec, mode: mode, brokerArguments: brokerArguments, timeout: timeout)
        } catch {
            await FleetSlots.shared.release()
            throw error
        }
        do {
            let result = try await body(fleet)
            await fleet.shutdown()
            await FleetSlots.shared.release()
            return result
        } catch {
            await fleet.shutdown()
            await FleetSlots.shared.release()
            throw error
        }
    }

    private init(
        directory: String, mode: Mode, broker: any FleetDaemon,
        makeBroker: @escaping @Sendable (String, String) -> any FleetDaemon,
        devices: [DeviceID: any FleetDaemon], owners: [DeviceID: MemberID], sockets: [DeviceID: String]
    ) {
        self.directory = directory
        self.mode = mode
        self.broker = broker
        self.makeBroker = makeBroker
        self.devices = devices
        self.owners = owners
        self.sockets = sockets
    }

    /// The broker's ready file (endpoints and public key).
    public var readyFile: String { directory + "/broker/broker.ready.json" }

    /// The local socket of a device's daemon.
    public func socket(of device: DeviceID) -> String { sockets[device] ?? "" }

    /// A device's daemon.
    public func daemon(_ device: DeviceID) throws -> any FleetDaemon {
        guard let daemon = devices[device] else { throw FleetError("no device '\(device)' in this fleet") }
        return daemon
    }

    /// An app on a child's device, through the PermissionKit library. The default timeout is longer than an app's
    /// (5 s): a test process that runs daemons in process and many tests at once can be slow to answer.
    public func app(_ bundleID: String, on device: DeviceID, timeout: Duration = .seconds(15)) -> CommunicationLimits {
        CommunicationLimits(socketPath: socket(of: device), bundleID: bundleID, timeout: timeout)
    }

    /// An app on any member's device, through the DeclaredAgeRange library; the default timeout is `app`'s.
    public func ageRange(_ bundleID: String, on device: DeviceID, timeout: Duration = .seconds(15)) -> AgeRangeService {
        AgeRangeService(socketPath: socket(of: device), bundleID: bundleID, timeout: timeout)
    }

    /// A person at any device, for age range prompts and settings.
    public func ageConsole(on device: DeviceID) async throws -> AgeConsole {
        try await AgeConsole(socketPath: socket(of: device))
    }

    /// A person at a parent's device.
    public func parent(on device: DeviceID) async throws -> ParentConsole {
        try await ParentConsole(socketPath: socket(of: device))
    }

    // MARK: lifecycle and faults

    /// Starts the broker and waits for its ready file; remembers the ports it picked, for restarts.
    public func startBroker(timeout: Duration = .seconds(30)) async throws {
        try? FileManager.default.removeItem(atPath: readyFile)
        try await broker.start()
        try await eventually("family-broker is ready", timeout: timeout) {
            FileManager.default.fileExists(atPath: self.readyFile)
        }
        guard let data = FileManager.default.contents(atPath: readyFile),
            let ready = try? JSONDecoder().decode(BrokerReady.self, from: data)
        else { throw FleetError("the broker's ready file is unreadable", logs: logs()) }
        brokerState.withLock { $0.endpoints = (ready.ingress, ready.egress) }
        try await startRelays(to: ready)
    }

    /// Stops a daemon with SIGTERM (SIGKILL after a grace period) and starts it again; waits until it is back.
    public func restart(_ device: DeviceID) async throws {
        let daemon = try daemon(device)
        await daemon.stop()
        try await daemon.start()
        try await waitUntilLinked(device)
    }

    /// Kills the broker with SIGKILL and starts it again on the same ports and state.
    public func crashAndRestartBroker() async throws {
        await currentBroker.crash()
        try await startBrokerAgain()
    }

    /// Stops the broker gracefully and starts it again on the same ports.
    public func restartBroker() async throws {
        await currentBroker.stop()
        try await startBrokerAgain()
    }

    /// Starts a stopped or crashed broker again on the ports it had, so devices reconnect to it by themselves.
    public func startBrokerAgain() async throws {
        guard let (ingress, egress) = brokerState.withLock({ $0.endpoints }) else {
            throw FleetError("the broker was never started", logs: logs())
        }
        let replacement = makeBroker(ingress, egress)
        try? FileManager.default.removeItem(atPath: readyFile)
        try await replacement.start()
        brokerState.withLock { $0.current = replacement }
        try await eventually("family-broker is ready again", timeout: .seconds(30)) {
            FileManager.default.fileExists(atPath: self.readyFile)
        }
    }

    struct BrokerState: ~Copyable {
        var endpoints: (String, String)?
        var current: (any FleetDaemon)?
    }

    let brokerState = Mutex(BrokerState())

    /// The broker process now running (a restart on fixed ports replaces it).
    public var currentBroker: any FleetDaemon { brokerState.withLock { $0.current } ?? broker }

    /// Waits until a device's daemon answers on its socket and is linked to the broker.
    public func waitUntilLinked(_ device: DeviceID, timeout: Duration = .seconds(30)) async throws {
        try await eventually("\(device) is linked to the broker", timeout: timeout) {
            try await self.status(of: device).linked
        }
    }

    /// Waits until every device is linked, checking several at a time (each check opens a local connection).
    public func waitUntilAllLinked(timeout: Duration = .seconds(30)) async throws {
        var waiting = devices.keys.sorted()[...]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                guard let device = waiting.popFirst() else { break }
                group.addTask { try await self.waitUntilLinked(device, timeout: timeout) }
            }
            while try await group.next() != nil {
                guard let device = waiting.popFirst() else { continue }
                group.addTask { try await self.waitUntilLinked(device, timeout: timeout) }
            }
        }
    }

    /// Whether a device's daemon is up and linked, from its local socket.
    public func status(of device: DeviceID) async throws -> (member: MemberID?, linked: Bool) {
        let path = socket(of: device)
        guard FileManager.default.fileExists(atPath: path) else { return (nil, false) }
        let client = try LocalClient(endpoint: LocalEndpoints.ipc(path), peer: device)
        try await client.start()
        defer { Task { await client.close() } }
        guard case .appWelcome(let member, let linked) = try? await client.request(.ping, timeout: .milliseconds(500))
        else {
            return (nil, false)
        }
        return (member, linked)
    }

    /// Polls `condition` until it holds; on timeout throws a `FleetError` carrying every daemon's recent log lines.
    public func eventually(
        _ what: String, timeout: Duration = .seconds(10), _ condition: @Sendable () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if (try? await condition()) == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw FleetError("timed out after \(timeout): \(what)", logs: logs())
    }

    /// A device's daemon's last `lines` log lines.
    public func recentLog(of device: DeviceID, lines: Int = 30) -> String {
        devices[device]?.recentLog(lines: lines) ?? ""
    }

    /// Every daemon's recent log lines, headed by its name.
    public func logs(lines: Int = 25) -> String {
        let brokers = self.brokers.isEmpty ? [currentBroker] : self.brokers.map(\.daemon)
        return (brokers + devices.keys.sorted().compactMap { devices[$0] }).map { daemon in
            "---- \(daemon.name) (\(daemon.logFile)):\n" + daemon.recentLog(lines: lines)
        }.joined(separator: "\n")
    }

    /// Stops every daemon (SIGTERM, then SIGKILL), closes the relays and removes the fleet's directory. Idempotent.
    /// It runs to the end even when the calling task is cancelled, so a cancelled test leaves nothing behind.
    public func shutdown() async {
        guard
            shutDown.withLock({ done in
                defer { done = true }
                return !done
            })
        else { return }
        // Unstructured: a cancelled caller must not cut short the waits for each daemon's exit.
        await Task { await self.tearDown() }.value
    }

    private func tearDown() async {
        await withTaskGroup(of: Void.self) { group in
            for daemon in devices.values { group.addTask { await daemon.stop() } }
        }
        await currentBroker.stop()
        await broker.stop()
        for broker in brokers {
            await broker.daemon.stop()
            await broker.closeRelays()
        }
        for (ingress, egress) in relays.withLock({ Array($0.values) }) {
            await ingress.close()
            await egress.close()
        }
        for daemon in [broker, currentBroker] + Array(devices.values) {
            (daemon as? InProcessDaemon)?.closeLog()
        }
        await postgres.withLock({ $0 })?.remove()
        for server in otherServers.withLock({ $0 }) { await server.remove() }
        if ProcessInfo.processInfo.environment["HEARTH_FLEET_KEEP"] == nil {
            // Every daemon's database, log and key: many unlinks on a busy disk, not on the cooperative pool.
            let directory = self.directory
            await BlockingWork.run { try? FileManager.default.removeItem(atPath: directory) }
        }
    }
}
