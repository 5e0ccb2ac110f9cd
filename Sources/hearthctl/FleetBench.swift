import ArgumentParser
import Foundation
import HearthFleet

/// Times starting a fleet of N devices until every one is linked, and reads its memory (sum of resident sets).
struct FleetBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Start a fleet of N devices (5 per family) until all are linked; print wall time and memory.")

    @Option(help: "Devices in all; 5 per family (organizer, guardian, a child with two devices, a child with one).")
    var devices = 200

    @Option(help: "processes or inProcess.")
    var mode: Fleet.Mode = .processes

    @Option(help: "Start-ups to time; the median is reported.")
    var runs = 1

    @Option(help: "Seconds to wait for the fleet to start.")
    var timeout = 600

    func validate() throws {
        guard devices >= 5, devices % 5 == 0 else { throw ValidationError("--devices must be a multiple of 5") }
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    static func spec(devices: Int) -> FleetSpec {
        FleetSpec(families: (0..<devices / 5).map { f in
            .init("family\(f)", members: [
                .organizer("organizer\(f)", devices: ["organizer\(f)-phone"]),
                .guardian("guardian\(f)", devices: ["guardian\(f)-phone"]),
                .child("elder\(f)", devices: ["elder\(f)-tablet", "elder\(f)-phone"]),
                .child("younger\(f)", devices: ["younger\(f)-tablet"]),
            ])
        })
    }

    func run() async throws {
        var times: [Double] = []
        for run in 1...runs {
            let ownBefore = Self.residentKiB(getpid())
            let start = ContinuousClock.now
            let fleet = try await Fleet.launch(Self.spec(devices: devices), mode: mode, timeout: .seconds(timeout))
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            times.append(seconds)
            let pids = ([fleet.currentBroker] + fleet.devices.values).compactMap { ($0 as? DaemonProcess)?.pid }
            let daemonsKiB = pids.map(Self.residentKiB).reduce(0, +)
            let brokerKiB = (fleet.currentBroker as? DaemonProcess)?.pid.map(Self.residentKiB) ?? 0
            let ownKiB = Self.residentKiB(getpid())
            var line = String(format: "run %d: %d devices (%d families, %@) linked in %.2f s", run, devices, devices / 5, mode.rawValue, seconds)
            switch mode {
            case .processes:
                line += String(format: "; resident memory: %.0f MiB for %d processes (broker %.0f MiB, device daemons %.1f MiB each on average), hearthctl (relays) %.0f MiB",
                               Double(daemonsKiB) / 1024, pids.count, Double(brokerKiB) / 1024,
                               Double(daemonsKiB - brokerKiB) / 1024 / Double(max(pids.count - 1, 1)), Double(ownKiB) / 1024)
            case .inProcess:
                line += String(format: "; resident memory of this one process: %.0f MiB (%.0f MiB before the fleet)", Double(ownKiB) / 1024, Double(ownBefore) / 1024)
            }
            FleetCommand.emit(line)
            let stopStart = ContinuousClock.now
            await fleet.shutdown()
            FleetCommand.emit("  shut down in \(ContinuousClock.now - stopStart)")
        }
        times.sort()
        FleetCommand.emit(String(format: "median start-up over %d run(s): %.2f s", runs, times[times.count / 2]))
    }

    static func residentKiB(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }
}
