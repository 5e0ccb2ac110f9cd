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
        FleetSpec(
            families: (0..<devices / 5).map { f in
                .init(
                    "family\(f)",
                    members: [
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
            let ownCPUBefore = Self.cpuSeconds(getpid())
            let start = ContinuousClock.now
            let fleet = try await Fleet.launch(Self.spec(devices: devices), mode: mode, timeout: .seconds(timeout))
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            times.append(seconds)
            let pids = ([fleet.currentBroker] + fleet.devices.values).compactMap { ($0 as? DaemonProcess)?.pid }
            let daemonsKiB = pids.map(Self.residentKiB).reduce(0, +)
            let daemonsPssKiB = pids.map { Self.rollup($0, "Pss") }.reduce(0, +)
            let brokerKiB = (fleet.currentBroker as? DaemonProcess)?.pid.map(Self.residentKiB) ?? 0
            let ownKiB = Self.residentKiB(getpid())
            let cpu = pids.map(Self.cpuSeconds).reduce(0, +) + Self.cpuSeconds(getpid()) - ownCPUBefore
            var line = String(
                format: "run %d: %d devices (%d families, %@) linked in %.2f s, using %.1f CPU seconds", run, devices,
                devices / 5, mode.rawValue, seconds, cpu)
            switch mode {
            case .processes:
                line += String(
                    format:
                        "; memory of %d processes: sum of RSS %.0f MiB (broker %.0f MiB, device daemons %.1f MiB each on average), sum of PSS %.0f MiB (shared libraries counted once); hearthctl (relays) RSS %.0f MiB",
                    pids.count, Double(daemonsKiB) / 1024, Double(brokerKiB) / 1024,
                    Double(daemonsKiB - brokerKiB) / 1024 / Double(max(pids.count - 1, 1)),
                    Double(daemonsPssKiB) / 1024,
                    Double(ownKiB) / 1024)
            case .inProcess:
                line += String(
                    format: "; resident memory of this one process: %.0f MiB (%.0f MiB before the fleet)",
                    Double(ownKiB) / 1024, Double(ownBefore) / 1024)
            }
            FleetCommand.emit(line)
            let stopStart = ContinuousClock.now
            await fleet.shutdown()
            FleetCommand.emit("  shut down in \(ContinuousClock.now - stopStart)")
        }
        times.sort()
        FleetCommand.emit(String(format: "median start-up over %d run(s): %.2f s", runs, times[times.count / 2]))
    }

    /// A field of /proc/PID/smaps_rollup in KiB, e.g. `Pss`: resident memory with each shared page split among its users.
    static func rollup(_ pid: Int32, _ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
        else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }

    /// User and system CPU time a process has used so far (/proc/PID/stat), in seconds.
    static func cpuSeconds(_ pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return 0 }
        // After "pid (name)": state is field 3, utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func residentKiB(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }
}
