import Foundation
public import Histogram

/// The figures of one cycle run against one target, as written to the JSON report.
public struct CycleReport: Codable, Sendable {
    public struct Latency: Codable, Sendable {
        /// Microseconds.
        public var p50: UInt64, p90: UInt64, p99: UInt64, p999: UInt64, max: UInt64
        public var mean: Double
        public var count: UInt64

        init(_ h: Histogram<UInt64>) {
            p50 = h.valueAtPercentile(50)
            p90 = h.valueAtPercentile(90)
            p99 = h.valueAtPercentile(99)
            p999 = h.valueAtPercentile(99.9)
            max = h.totalCount == 0 ? 0 : h.max
            mean = h.totalCount == 0 ? 0 : h.mean
            count = h.totalCount
        }
    }

    /// One second of the run as the progress line saw it: what a plot of throughput and CPU over time needs.
    public struct Second: Codable, Sendable {
        /// Seconds since the load started, at the end of this second.
        public var seconds: Double
        /// `warm-up`, `measure` or `drain`.
        public var phase: String
        /// Cycles completed in this second.
        public var cycles: Int
        /// The target process's CPU in this second, percent of one core.
        public var cpuPercent: Double?
    }

    public struct ProcessFigures: Codable, Sendable {
        public var pid: Int32
        /// Percent of one core over the measured window.
        public var cpuPercent: Double?
        public var residentMiB: Double?
        public var peakResidentMiB: Double?
    }

    /// `broker` or `relay`.
    public var target: String
    /// `open` or `closed`.
    public var mode: String
    public var targetRate: Double?
    public var inFlight: Int?
    public var families: Int
    public var childrenPerFamily: Int
    public var parentsPerFamily: Int
    public var devices: Int
    public var shards: Int
    public var warmupSeconds: Double
    public var durationSeconds: Double
    public var thinkTimeMilliseconds: Double
    /// Cycles completed inside the measured window.
    public var cycles: Int
    /// Asks intended inside the window.
    public var sent: Int
    /// `cycles` / `durationSeconds`.
    public var cyclesPerSecond: Double
    /// Whole-cycle latency (ask sent → response at the child), from the intended send time, think time excluded.
    public var latencyMicroseconds: Latency
    public var errors: Int
    public var lost: Int
    public var duplicated: Int
    public var redelivered: Int
    public var gapsSynced: Int
    /// Messages between the devices and the target, both ways, inside the window (nil in reports from before it was
    /// counted).
    public var messages: Int?
    public var server: ProcessFigures
    /// The load generator's own CPU over the window (all its threads), percent of one core.
    public var generatorCPUPercent: Double?
    public var errorSamples: [String]
    /// The broker's database server (PostgreSQL: the postmaster and its backends), when it has one.
    public var database: ProcessFigures?
    /// Every latency of the window: hdrhistogram-swift's own `Codable` form, so that a later reader can draw the whole
    /// distribution or merge runs, not only the summary above (nil in reports from before it was kept).
    public var latencyHistogram: Histogram<UInt64>? = nil
    /// A sample per second from the start of the load to the end of the drain (nil in older reports).
    public var timeline: [Second]? = nil

    /// CPU microseconds per completed cycle of a process that used `cpuPercent` of one core over the window.
    public func cpuMicrosecondsPerCycle(_ cpuPercent: Double?) -> Double? {
        guard let cpuPercent, cyclesPerSecond > 0 else { return nil }
        return cpuPercent / 100 / cyclesPerSecond * 1e6
    }

    /// Messages per completed cycle, both ways (commands, replies, events, heartbeats).
    public var messagesPerCycle: Double? {
        guard let messages, cycles > 0 else { return nil }
        return Double(messages) / Double(cycles)
    }

    /// One human-readable block.
    public var text: String {
        let l = latencyMicroseconds
        func ms(_ us: UInt64) -> String { String(format: "%.2f ms", Double(us) / 1000) }
        let offered =
            mode == "open"
            ? String(format: "open loop at %.0f cycles/s", targetRate ?? 0) : "closed loop, \(inFlight ?? 0) in flight"
        var lines = [
            "\(target): \(offered); \(families) families × (\(childrenPerFamily) child, \(parentsPerFamily) parent) = \(devices) devices, \(shards) shard(s)",
            String(
                format: "  throughput  %.0f cycles/s  (%d cycles in %.0f s; %d asked)", cyclesPerSecond, cycles,
                durationSeconds, sent),
            "  latency     p50 \(ms(l.p50))  p90 \(ms(l.p90))  p99 \(ms(l.p99))  p99.9 \(ms(l.p999))  max \(ms(l.max))  (\(l.count) cycles, think time excluded)",
            "  checks      errors \(errors)  lost \(lost)  duplicated \(duplicated)  (redelivered \(redelivered), gaps synced \(gapsSynced))",
            "  \(target) process  CPU \(server.cpuPercent.map { String(format: "%.0f%%", $0) } ?? "?")  RSS \(server.residentMiB.map { String(format: "%.0f MiB", $0) } ?? "?") (peak \(server.peakResidentMiB.map { String(format: "%.0f MiB", $0) } ?? "?"));  generator CPU \(generatorCPUPercent.map { String(format: "%.0f%%", $0) } ?? "?")",
        ]
        func perCycle(_ percent: Double?) -> String {
            cpuMicrosecondsPerCycle(percent).map { String(format: "%.0f µs", $0) } ?? "?"
        }
        var cpu = "  CPU/cycle   \(target) \(perCycle(server.cpuPercent))"
        if let perCycle = messagesPerCycle { cpu += String(format: "  messages/cycle %.2f", perCycle) }
        if let database {
            let share = database.cpuPercent.map { String(format: "%.0f%%", $0) } ?? "?"
            cpu += "  PostgreSQL \(perCycle(database.cpuPercent)) (\(share))"
        }
        lines.append(cpu)
        if !errorSamples.isEmpty { lines.append("  first errors: " + errorSamples.joined(separator: " | ")) }
        return lines.joined(separator: "\n")
    }
}
