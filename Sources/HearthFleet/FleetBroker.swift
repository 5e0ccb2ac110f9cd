import Foundation
import HearthLab

/// One broker of a fleet of several on one PostgreSQL server (`FleetSpec.brokers` > 1): its own key, ports, state
/// directory and `brokerName`, and three relays a test can cut: devices to its ingress, devices to its egress, and
/// the broker to PostgreSQL. It advertises its device relays, so a redirect to it goes through them too.
public final class FleetBroker: Sendable {
    /// 1-based, as scenarios and logs name it.
    public let number: Int
    /// Its `brokerName`: `broker-1`, `broker-2`…
    public let name: String
    public let stateDirectory: String
    /// The ready file devices read: the device relays' endpoints and the broker's public key.
    public let deviceReadyFile: String
    /// The broker's CURVE public key (Z85).
    public let publicKey: String
    let ingress: TCPRelay
    let egress: TCPRelay
    let store: TCPRelay
    /// The broker's process (started again in place: same ports, key and state).
    public let daemon: any FleetDaemon

    init(
        number: Int, stateDirectory: String, deviceReadyFile: String, publicKey: String,
        relays: (ingress: TCPRelay, egress: TCPRelay, store: TCPRelay), daemon: any FleetDaemon
    ) {
        self.number = number
        self.name = "broker-\(number)"
        self.stateDirectory = stateDirectory
        self.deviceReadyFile = deviceReadyFile
        self.publicKey = publicKey
        (ingress, egress, store) = relays
        self.daemon = daemon
    }

    /// The broker's own ready file, written once it listens.
    public var readyFile: String { stateDirectory + "/broker.ready.json" }

    /// The ingress endpoint devices use (the relay's).
    public var deviceIngress: String { ingress.endpoint }

    /// Starts the broker (again, on the same ports, key and state) and waits for its ready file.
    func start(timeout: Duration) async throws {
        try? FileManager.default.removeItem(atPath: readyFile)
        try await daemon.start()
        let deadline = ContinuousClock.now + timeout
        while !FileManager.default.fileExists(atPath: readyFile) {
            guard ContinuousClock.now < deadline, daemon.isRunning else {
                throw FleetError(
                    "\(name) did not become ready within \(timeout)", logs: daemon.recentLog(lines: 30))
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// What a test can cut between a broker and the rest.
    public enum Link: String, Sendable, Codable, CaseIterable {
        /// Devices to the broker (both of its ports).
        case devices
        /// The broker to its PostgreSQL server.
        case store
        /// Both.
        case all
    }

    func relays(_ link: Link) -> [TCPRelay] {
        switch link {
        case .devices: [ingress, egress]
        case .store: [store]
        case .all: [ingress, egress, store]
        }
    }

    func closeRelays() async {
        for relay in [ingress, egress, store] { await relay.close() }
    }
}

extension FleetBroker {
    /// Device connections through this broker's ingress relay now: nonzero while some device is on this broker.
    public var deviceConnections: Int { ingress.liveConnections / 2 }
}
