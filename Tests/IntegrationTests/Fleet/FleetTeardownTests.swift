import Foundation
import HearthCore
import HearthFleet
import Synchronization
import Testing

/// `Fleet.with` leaves nothing behind when the test fails or is cancelled: no process, no listening port, no file.
@Suite("Fleet teardown", .serialized, .tags(.fleet))
struct FleetTeardownTests {
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [.organizer("alice", devices: ["alice-phone"]), .child("emma", devices: ["emma-tablet"])])
    ])

    /// What a fleet held while it ran.
    struct Footprint: Sendable {
        var processes: [DaemonProcess]
        var pids: [Int32]
        var ports: [Int]
        var directory: String
    }

    struct DeliberateFailure: Error {}

    static func footprint(of fleet: Fleet) -> Footprint {
        let processes = ([fleet.currentBroker] + fleet.devices.values).compactMap { $0 as? DaemonProcess }
        return Footprint(
            processes: processes, pids: processes.compactMap(\.pid), ports: fleet.ports, directory: fleet.directory)
    }

    /// Whether a TCP listener can bind 127.0.0.1:port (with SO_REUSEADDR, as any server would).
    static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return bound == 0 && listen(fd, 1) == 0
    }

    static func expectNothingLeft(_ footprint: Footprint, processes: Bool) async {
        if processes { #expect(footprint.pids.count == 3, "a broker and two device daemons ran") }
        for pid in footprint.pids {
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "process \(pid) is gone")
        }
        for process in footprint.processes {
            // Stopped with SIGTERM and given the time to finish, even from a cancelled task: not killed.
            let status = await process.waitForExit(timeout: .zero)
            #expect(status == 0, "\(process.name) exited gracefully (status \(String(describing: status)))")
        }
        #expect(footprint.ports.count == 6, "the broker's two ports and two relays per device")
        for port in footprint.ports {
            #expect(canBind(port), "port \(port) is free again")
        }
        #expect(!FileManager.default.fileExists(atPath: footprint.directory), "the fleet's directory is removed")
    }

    @Test(arguments: [Fleet.Mode.processes, .inProcess])
    func aFailingTestLeavesNothingBehind(mode: Fleet.Mode) async throws {
        let seen = Mutex<Footprint?>(nil)
        await #expect(throws: DeliberateFailure.self) {
            try await Fleet.with(Self.family, mode: mode) { fleet in
                let footprint = Self.footprint(of: fleet)
                seen.withLock { $0 = footprint }
                for port in footprint.ports {
                    #expect(!Self.canBind(port), "port \(port) is in use while the fleet runs")
                }
                for pid in footprint.pids { #expect(kill(pid, 0) == 0, "process \(pid) runs") }
                throw DeliberateFailure()
            }
        }
        let footprint = try #require(seen.withLock { $0 })
        await Self.expectNothingLeft(footprint, processes: mode == .processes)
    }

    @Test(arguments: [Fleet.Mode.processes, .inProcess])
    func aCancelledTestLeavesNothingBehind(mode: Fleet.Mode) async throws {
        let seen = Mutex<Footprint?>(nil)
        let test = Task {
            try await Fleet.with(Self.family, mode: mode) { fleet in
                seen.withLock { $0 = Self.footprint(of: fleet) }
                try await Task.sleep(for: .seconds(120))
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while seen.withLock({ $0 == nil }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        test.cancel()
        let outcome = await test.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        let footprint = try #require(seen.withLock { $0 })
        await Self.expectNothingLeft(footprint, processes: mode == .processes)
    }
}
