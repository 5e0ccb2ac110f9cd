import Foundation
import HearthLoad

/// One target of docs/PERFORMANCE.md ("Targets") judged against a run: met or not and by how much, or not measured
/// by a run of this shape.
struct TargetVerdict: Codable {
    enum Outcome: String, Codable {
        case met
        case notMet = "not met"
        case notMeasured = "not measured"
    }

    /// A short key (`cpu-per-cycle`, `relay-ratio`, `open-loop-latency`), for scripts and the page's DOM.
    var key: String
    /// The target as docs/PERFORMANCE.md states it.
    var target: String
    var outcome: Outcome
    /// What was measured and the margin, or why this run does not measure it.
    var detail: String

    var text: String { "\(outcome == .met ? "MET" : outcome == .notMet ? "NOT MET" : "--"): \(target): \(detail)" }

    /// docs/PERFORMANCE.md's rows 1–3, the ones a `cycle` run measures.
    static let cpuLimitMicroseconds = 130.0
    static let relayRatio = 0.5
    static let openLoopRate = 5000.0
    static let p99LimitMilliseconds = 5.0
    static let p999LimitMilliseconds = 20.0

    static func all(for reports: CycleReports) -> [TargetVerdict] {
        [cpuPerCycle(reports.broker), relayRatio(reports), openLoopLatency(reports.broker)]
    }

    /// "by how much": the measured value against the limit, as a percentage under or over it.
    static func margin(_ value: Double, limit: Double) -> String {
        let percent = abs(value - limit) / limit * 100
        return String(format: "%.0f%% ", percent) + (value > limit ? "over" : "under") + " the limit"
    }

    static func cpuPerCycle(_ broker: CycleReport?) -> TargetVerdict {
        let target = String(format: "broker CPU ≤ %.0f µs per cycle, closed loop", cpuLimitMicroseconds)
        guard let broker, broker.mode == "closed",
            let cpu = broker.cpuMicrosecondsPerCycle(broker.server.cpuPercent)
        else {
            return .init(key: "cpu-per-cycle", target: target, outcome: .notMeasured, detail: "needs --closed")
        }
        return .init(
            key: "cpu-per-cycle", target: target, outcome: cpu <= cpuLimitMicroseconds ? .met : .notMet,
            detail: String(format: "%.0f µs, ", cpu) + margin(cpu, limit: cpuLimitMicroseconds))
    }

    static func relayRatio(_ reports: CycleReports) -> TargetVerdict {
        let target = String(format: "closed loop ≥ %.1f × the relay's cycles/s", relayRatio)
        guard let broker = reports.broker, broker.mode == "closed", let ratio = reports.brokerToBaseline else {
            return .init(key: "relay-ratio", target: target, outcome: .notMeasured, detail: "needs --closed --baseline")
        }
        return .init(
            key: "relay-ratio", target: target, outcome: ratio >= relayRatio ? .met : .notMet,
            detail: String(format: "%.3f, ", ratio) + margin(ratio, limit: relayRatio))
    }

    static func openLoopLatency(_ broker: CycleReport?) -> TargetVerdict {
        let target = String(
            format: "5,000/s open loop: p99 ≤ %.0f ms, p99.9 ≤ %.0f ms", p99LimitMilliseconds, p999LimitMilliseconds)
        guard let broker, broker.mode == "open", let rate = broker.targetRate else {
            return .init(key: "open-loop-latency", target: target, outcome: .notMeasured, detail: "needs --rate")
        }
        let p99 = Double(broker.latencyMicroseconds.p99) / 1000
        let p999 = Double(broker.latencyMicroseconds.p999) / 1000
        let met = p99 <= p99LimitMilliseconds && p999 <= p999LimitMilliseconds
        var detail = String(format: "p99 %.2f ms, ", p99) + margin(p99, limit: p99LimitMilliseconds)
        detail += String(format: "; p99.9 %.2f ms, ", p999) + margin(p999, limit: p999LimitMilliseconds)
        if rate != openLoopRate {
            detail += String(format: " (at %.0f/s offered, not the target's 5,000/s)", rate)
        }
        return .init(key: "open-loop-latency", target: target, outcome: met ? .met : .notMet, detail: detail)
    }
}
