import FamilyBroker
public import Foundation
public import HearthCore
import HearthLab
import Synchronization

/// Faults a test injects, the same in both modes: cutting a device off its broker, and moving the broker's clock.
extension Fleet {
    /// Cuts a device off its broker: its live connections drop and new ones are refused until `restore(_:)`.
    /// The daemon keeps running (its app or person can still talk to it) and keeps trying to reconnect.
    public func cut(_ device: DeviceID) async throws {
        let (ingress, egress) = try relay(of: device)
        await ingress.cut()
        await egress.cut()
    }

    /// Lets a cut device reach its broker again; it reconnects by itself (within ZeroMQ's 2 s reconnect back-off).
    public func restore(_ device: DeviceID) throws {
        let (ingress, egress) = try relay(of: device)
        ingress.restore()
        egress.restore()
    }

    /// Whether a device is cut off its broker.
    public func isCut(_ device: DeviceID) throws -> Bool { try relay(of: device).ingress.isCut }

    /// Moves the broker's "now" forward (or back) by `interval`; the broker's next command sees the new time
    /// (question expiry, ages from birth dates). Devices and apps keep the real time.
    public func advanceClock(by interval: Duration) throws {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        let offset = clockOffset.withLock { offset in
            offset += seconds
            return offset
        }
        try OffsetClock.write(offset: offset, to: clockFile)
    }

    /// What the broker takes for "now": the real time plus every `advanceClock(by:)` so far.
    public var brokerNow: Date { Date().addingTimeInterval(clockOffset.withLock { $0 }) }

    /// The file holding the broker clock's offset in seconds (`family-broker-lab`'s `--clock-file`).
    public var clockFile: String { directory + "/clock" }

    /// Starts one pair of relays per device in front of the broker's ports (once; they survive broker restarts on
    /// the same ports) and writes each device's ready file with the relays' endpoints.
    func startRelays(to ready: BrokerReady) async throws {
        guard relays.withLock({ $0.isEmpty }), !devices.isEmpty else { return }
        guard let ingressPort = Self.port(of: ready.ingress), let egressPort = Self.port(of: ready.egress) else {
            throw FleetError("the broker's endpoints \(ready.ingress), \(ready.egress) are not tcp://HOST:PORT")
        }
        for device in devices.keys.sorted() {
            let ingress = try await TCPRelay.start(upstreamPort: ingressPort)
            let egress = try await TCPRelay.start(upstreamPort: egressPort)
            relays.withLock { $0[device] = (ingress, egress) }
            let relayed = RelayedReady(ingress: ingress.endpoint, egress: egress.endpoint, publicKey: ready.publicKey)
            try JSONEncoder().encode(relayed).write(
                to: URL(fileURLWithPath: Self.relayReadyFile(root: directory, device: device)), options: .atomic)
        }
    }

    /// Every port the fleet listens on: the broker's two and each relay's.
    public var ports: [Int] {
        let broker =
            brokerState.withLock { $0.endpoints }.map { [Self.port(of: $0.0), Self.port(of: $0.1)].compactMap { $0 } }
            ?? []
        return broker + relays.withLock { $0.values.flatMap { [$0.ingress.port, $0.egress.port] } }
    }

    private func relay(of device: DeviceID) throws -> (ingress: TCPRelay, egress: TCPRelay) {
        guard let relay = relays.withLock({ $0[device] }) else {
            throw FleetError("no device '\(device)' in this fleet")
        }
        return relay
    }

    /// A device's ready file: where its relays listen, and the broker's key (the layout of `BrokerReady`).
    struct RelayedReady: Codable {
        var ingress: String
        var egress: String
        var publicKey: String
    }

    static func port(of endpoint: String) -> Int? {
        endpoint.split(separator: ":").last.flatMap { Int($0) }
    }
}
