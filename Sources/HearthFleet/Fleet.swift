import FamilyBroker
import Foundation
import HearthCore
import HearthProtocol
import DeclaredAgeRange
import HearthTransport
import PermissionKit
import Synchronization

/// A broker and its devices' daemons, each a real process over real ZeroMQ sockets, in a temporary directory with
/// generated keys and free ports. Script it from a test; `shutdown()` leaves no process or file behind.
public final class Fleet: Sendable {
    /// The fleet's temporary directory: keys, state, sockets and logs.
    public let directory: String
    public let broker: DaemonProcess
    /// Device daemons by device id.
    public let devices: [DeviceID: DaemonProcess]
    /// The member each device belongs to.
    public let owners: [DeviceID: MemberID]
    private let sockets: [DeviceID: String]
    private let shutDown = Mutex(false)

    /// Launches the broker and one daemon per device, and waits until every device is linked.
    /// `brokerArguments` are added to family-broker's command line, e.g. `["--subscriber-hwm", "10"]`.
    public static func launch(_ spec: FleetSpec, brokerArguments: [String] = [], timeout: Duration = .seconds(30)) async throws -> Fleet {
        let bin = try BinaryLocator.directory()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-fleet-\(UUID().uuidString.prefix(8))").path
        let fm = FileManager.default
        for sub in ["keys", "logs", "run", "broker"] {
            try fm.createDirectory(atPath: root + "/" + sub, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        var file = FamilyFile(families: [], unaffiliated: [])
        var owners: [DeviceID: MemberID] = [:]
        var roles: [DeviceID: MemberRole] = [:]
        func entry(_ member: FleetSpec.Member) throws -> FamilyFile.Member {
            var devices: [FamilyFile.Device] = []
            for device in member.devices {
                let keys = try KeyFiles.generate(at: root + "/keys/" + device)
                devices.append(.init(id: device, publicKey: keys.publicKey))
                owners[device] = member.id
                roles[device] = member.role
            }
            return FamilyFile.Member(
                id: member.id, name: member.id, role: member.role.name, birthDate: member.birthDate.isEmpty ? nil : member.birthDate,
                region: member.region,
                communicationLimits: member.communicationLimits, devices: devices)
        }
        for family in spec.families {
            file.families.append(.init(id: family.id, name: family.id, members: try family.members.map(entry)))
        }
        file.unaffiliated = try spec.unaffiliated.map(entry)
        try file.yaml().write(toFile: root + "/families.yaml", atomically: true, encoding: .utf8)

        let broker = DaemonProcess(
            name: "family-broker", executable: bin + "/family-broker",
            arguments: [
                "--state", root + "/broker", "--families", root + "/families.yaml", "--ingress", "tcp://127.0.0.1:0",
                "--egress", "tcp://127.0.0.1:0", "--heartbeat", "0.5", "--log-level", "debug",
            ] + brokerArguments,
            environment: [:], logFile: root + "/logs/family-broker.log")
        var devices: [DeviceID: DaemonProcess] = [:]
        var sockets: [DeviceID: String] = [:]
        for (device, role) in roles {
            let kind = role == .child ? "child-device" : "parent-device"
            let socket = root + "/run/\(device).sock"
            sockets[device] = socket
            devices[device] = DaemonProcess(
                name: "\(kind) \(device)", executable: bin + "/" + kind,
                arguments: [
                    "--key-file", root + "/keys/\(device).key", "--state", root + "/devices/\(device)", "--socket", socket,
                    "--broker-ready", root + "/broker/broker.ready.json", "--log-level", "debug",
                ],
                environment: [:], logFile: root + "/logs/\(device).log")
        }
        let fleet = Fleet(directory: root, broker: broker, devices: devices, owners: owners, sockets: sockets)
        do {
            try await fleet.startBroker(timeout: timeout)
            for device in devices.values { try device.start() }
            for device in devices.keys.sorted() { try await fleet.waitUntilLinked(device, timeout: timeout) }
        } catch {
            let logs = fleet.logs()
            await fleet.shutdown()
            throw FleetError("fleet did not start: \(error)", logs: logs)
        }
        return fleet
    }

    /// Launches a fleet, runs `body` with it, and shuts it down whether `body` returns or throws: no process or file
    /// is left behind by a failing test.
    public static func with<T>(
        _ spec: FleetSpec, brokerArguments: [String] = [], timeout: Duration = .seconds(30), _ body: (Fleet) async throws -> T
    ) async throws -> T {
        await FleetSlots.shared.acquire()
        let fleet: Fleet
        do {
            fleet = try await launch(spec, brokerArguments: brokerArguments, timeout: timeout)
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

    private init(directory: String, broker: DaemonProcess, devices: [DeviceID: DaemonProcess], owners: [DeviceID: MemberID], sockets: [DeviceID: String]) {
        self.directory = directory
        self.broker = broker
        self.devices = devices
        self.owners = owners
        self.sockets = sockets
    }

    /// The broker's ready file (endpoints and public key).
    public var readyFile: String { directory + "/broker/broker.ready.json" }

    /// The local socket of a device's daemon.
    public func socket(of device: DeviceID) -> String { sockets[device] ?? "" }

    /// A device's daemon.
    public func daemon(_ device: DeviceID) throws -> DaemonProcess {
        guard let daemon = devices[device] else { throw FleetError("no device '\(device)' in this fleet") }
        return daemon
    }

    /// An app on a child's device, through the PermissionKit library.
    public func app(_ bundleID: String, on device: DeviceID, timeout: Duration = .seconds(5)) -> CommunicationLimits {
        CommunicationLimits(socketPath: socket(of: device), bundleID: bundleID, timeout: timeout)
    }

    /// An app on any member's device, through the DeclaredAgeRange library.
    public func ageRange(_ bundleID: String, on device: DeviceID, timeout: Duration = .seconds(5)) -> AgeRangeService {
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
        try broker.start()
        try await eventually("family-broker is ready", timeout: timeout) { FileManager.default.fileExists(atPath: self.readyFile) }
        guard let data = FileManager.default.contents(atPath: readyFile),
              let ready = try? JSONDecoder().decode(BrokerReady.self, from: data)
        else { throw FleetError("the broker's ready file is unreadable", logs: logs()) }
        brokerState.withLock { $0.endpoints = (ready.ingress, ready.egress) }
    }

    /// Stops a daemon with SIGTERM (SIGKILL after a grace period) and starts it again; waits until it is back.
    public func restart(_ device: DeviceID) async throws {
        let daemon = try daemon(device)
        await daemon.stop()
        try daemon.start()
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
        var arguments = broker.arguments
        for (flag, value) in [("--ingress", ingress), ("--egress", egress)] {
            if let index = arguments.firstIndex(of: flag) { arguments[index + 1] = value }
        }
        let replacement = DaemonProcess(
            name: broker.name, executable: broker.executable, arguments: arguments, environment: broker.environment, logFile: broker.logFile)
        try? FileManager.default.removeItem(atPath: readyFile)
        try replacement.start()
        brokerState.withLock { $0.current = replacement }
        try await eventually("family-broker is ready again", timeout: .seconds(30)) {
            FileManager.default.fileExists(atPath: self.readyFile)
        }
    }

    private struct BrokerState: ~Copyable {
        var endpoints: (String, String)?
        var current: DaemonProcess?
    }

    private let brokerState = Mutex(BrokerState())

    /// The broker process now running (a restart on fixed ports replaces it).
    public var currentBroker: DaemonProcess { brokerState.withLock { $0.current } ?? broker }

    /// Waits until a device's daemon answers on its socket and is linked to the broker.
    public func waitUntilLinked(_ device: DeviceID, timeout: Duration = .seconds(30)) async throws {
        try await eventually("\(device) is linked to the broker", timeout: timeout) {
            try await self.status(of: device).linked
        }
    }

    /// Whether a device's daemon is up and linked, from its local socket.
    public func status(of device: DeviceID) async throws -> (member: MemberID?, linked: Bool) {
        let path = socket(of: device)
        guard FileManager.default.fileExists(atPath: path) else { return (nil, false) }
        let client = try LocalClient(endpoint: LocalEndpoints.ipc(path), peer: device)
        try await client.start()
        defer { Task { await client.close() } }
        guard case .appWelcome(let member, let linked) = try? await client.request(.ping, timeout: .milliseconds(500)) else {
            return (nil, false)
        }
        return (member, linked)
    }

    /// Polls `condition` until it holds; on timeout throws a `FleetError` carrying every daemon's recent log lines.
    public func eventually(_ what: String, timeout: Duration = .seconds(10), _ condition: @Sendable () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if (try? await condition()) == true { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw FleetError("timed out after \(timeout): \(what)", logs: logs())
    }

    /// Every daemon's recent log lines, headed by its name.
    public func logs(lines: Int = 25) -> String {
        ([currentBroker] + devices.keys.sorted().compactMap { devices[$0] }).map { daemon in
            "---- \(daemon.name) (\(daemon.logFile)):\n" + daemon.recentLog(lines: lines)
        }.joined(separator: "\n")
    }

    /// Stops every daemon (SIGTERM, then SIGKILL) and removes the fleet's directory. Idempotent.
    public func shutdown() async {
        guard shutDown.withLock({ done in
            defer { done = true }
            return !done
        }) else { return }
        await withTaskGroup(of: Void.self) { group in
            for daemon in devices.values { group.addTask { await daemon.stop() } }
        }
        await currentBroker.stop()
        await broker.stop()
        if ProcessInfo.processInfo.environment["HEARTH_FLEET_KEEP"] == nil {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}
