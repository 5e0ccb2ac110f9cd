import Foundation
import HearthLoad

/// The broker against the raw relay under the same load. Below saturation (an open loop whose rate both complete)
/// their throughput is the offered rate by construction, and the ratio of 1.000 it gives says nothing: there the
/// broker's cost is its latency over the relay's. At saturation (closed loop, or a rate the broker falls behind) the
/// throughput ratio is the measure.
struct RelayComparison: Codable {
    /// Both completed at least this share of the offered rate: below saturation.
    static let completedShare = 0.9

    var belowSaturation: Bool
    /// The broker's cycles/s over the relay's.
    var throughput: Double
    /// The broker's latency over the relay's at p50, p99 and p99.9.
    var latencyP50: Double
    var latencyP99: Double
    var latencyP999: Double

    init(broker: CycleReport, relay: CycleReport) {
        if broker.mode == "open", let rate = broker.targetRate, rate > 0 {
            belowSaturation =
                broker.cyclesPerSecond >= Self.completedShare * rate
                && relay.cyclesPerSecond >= Self.completedShare * rate
        } else {
            belowSaturation = false
        }
        throughput = relay.cyclesPerSecond > 0 ? broker.cyclesPerSecond / relay.cyclesPerSecond : 0
        func ratio(_ a: UInt64, _ b: UInt64) -> Double { b > 0 ? Double(a) / Double(b) : 0 }
        let (b, r) = (broker.latencyMicroseconds, relay.latencyMicroseconds)
        latencyP50 = ratio(b.p50, r.p50)
        latencyP99 = ratio(b.p99, r.p99)
        latencyP999 = ratio(b.p999, r.p999)
    }

    /// One line for the text output and the page.
    var text: String {
        let latency = String(
            format: "p50 %.1f×, p99 %.1f×, p99.9 %.1f×", latencyP50, latencyP99, latencyP999)
        if belowSaturation {
            return "broker / raw relay latency: \(latency) (below saturation: both completed the offered rate, so "
                + "throughput does not tell them apart)"
        }
        return String(format: "broker / raw relay throughput: %.3f (at saturation); latency: ", throughput) + latency
    }
}
