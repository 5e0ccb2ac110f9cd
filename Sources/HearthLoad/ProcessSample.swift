import Foundation

/// A process's CPU time and memory, read from `/proc`.
public struct ProcessSample: Sendable {
    /// User + system CPU seconds so far.
    public var cpuSeconds: Double
    /// Resident memory now (`VmRSS`) and at its peak (`VmHWM`), in KiB.
    public var residentKiB: Int
    public var peakResidentKiB: Int
    public var at: ContinuousClock.Instant

    /// Reads `/proc/<pid>`; nil if the process is gone.
    public static func read(_ pid: Int32) -> ProcessSample? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")"),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        else { return nil }
        // After the command name: field 3 (state) is first, so utime (14) and stime (15) are at 11 and 12.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        func kib(_ key: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
        }
        return ProcessSample(
            cpuSeconds: (user + system) / ticks, residentKiB: kib("VmRSS:"), peakResidentKiB: kib("VmHWM:"), at: .now)
    }

    /// The CPU time of `pid` and its children together (a PostgreSQL postmaster and its backends), nil if it is gone.
    /// Memory is the parent's alone.
    public static func readTree(_ pid: Int32) -> ProcessSample? {
        guard var sample = read(pid) else { return nil }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for child in entries.compactMap(Int32.init) where parent(of: child) == pid {
            sample.cpuSeconds += read(child)?.cpuSeconds ?? 0
        }
        return sample
    }

    /// The parent of `pid`, from `/proc/<pid>/stat`.
    static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// CPU use between two samples, in percent of one core.
    public static func cpuPercent(from start: ProcessSample?, to end: ProcessSample?) -> Double? {
        guard let start, let end else { return nil }
        let wall = end.at - start.at
        let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        return seconds > 0 ? (end.cpuSeconds - start.cpuSeconds) / seconds * 100 : nil
    }
}
