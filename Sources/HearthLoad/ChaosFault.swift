import Foundation
import HearthCore
import HearthFleet

/// One fault a chaos run injects into a daemon of its fleet.
public enum ChaosFault: String, Sendable, CaseIterable {
    /// SIGKILL, then a new process after a short while.
    case kill
    /// SIGSTOP for a while, then SIGCONT.
    case pause
    /// SIGTERM (a graceful stop), then a new process.
    case restart
    /// The relays drop and refuse connections for a while: a device's, or a broker's of a cluster (from its devices and
    /// its database).
    case cut

    /// The three kinds of daemon whose kills a run counts.
    public enum Kind: String, Sendable, CaseIterable, Comparable {
        case broker = "family-broker"
        case child = "child-device"
        case parent = "parent-device"

        public static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    /// Injects the fault into `target` (a device id, or nil for the broker) and undoes it, taking `outage` for it.
    /// In a cluster, `broker` names the broker (1-based).
    func inject(into target: DeviceID?, broker: Int? = nil, of fleet: Fleet, outage: Duration) async throws {
        if target == nil, let broker { return try await inject(intoBroker: broker, of: fleet, outage: outage) }
        switch (self, target) {
        case (.kill, nil):
            await fleet.currentBroker.crash()
            try await Task.sleep(for: outage / 4)
            try await fleet.startBrokerAgain()
        case (.restart, nil):
            await fleet.currentBroker.stop()
            try await fleet.startBrokerAgain()
        case (.pause, nil):
            try fleet.currentBroker.pause()
            try await Task.sleep(for: outage)
            try fleet.currentBroker.resume()
        case (.kill, let device?):
            try await fleet.daemon(device).crash()
            try await Task.sleep(for: outage / 4)
            try await fleet.daemon(device).start()
        case (.restart, let device?):
            _ = try await fleet.daemon(device).stop()
            try await fleet.daemon(device).start()
        case (.pause, let device?):
            try fleet.daemon(device).pause()
            try await Task.sleep(for: outage)
            try fleet.daemon(device).resume()
        case (.cut, let device?):
            try await fleet.cut(device)
            try await Task.sleep(for: outage)
            try fleet.restore(device)
        case (.cut, nil):
            break  // the broker has no relay of its own: every device's would be cut
        }
    }

    /// The fault on broker `number` of a cluster: its partitions move to the others while it is away.
    private func inject(intoBroker number: Int, of fleet: Fleet, outage: Duration) async throws {
        switch self {
        case .kill:
            try await fleet.killBroker(number)
            try await Task.sleep(for: outage / 4)
            try await fleet.restartBroker(number)
        case .restart:
            try await fleet.restartBroker(number)
        case .pause:
            try fleet.pauseBroker(number)
            try await Task.sleep(for: outage)
            try fleet.continueBroker(number)
        case .cut:
            try await fleet.cutBroker(number)
            try await Task.sleep(for: outage)
            try fleet.restoreBroker(number)
        }
    }
}
