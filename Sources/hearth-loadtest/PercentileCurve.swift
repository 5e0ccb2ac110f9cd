import Foundation
import HearthLoad
import Histogram

/// A run's latency by percentile, as HdrHistogram plots it: the x axis is log10(1 / (1 − percentile)), so that 90%,
/// 99%, 99.9% and 99.99% are equally spaced and the tail gets as much room as the body.
enum PercentileCurve {
    /// The x coordinate of a percentile (0–100).
    static func position(_ percentile: Double) -> Double {
        log10(1 / max(1 - percentile / 100, 1e-7))
    }

    /// (percentile, milliseconds) points: every step of the full histogram when the report has it, the summary
    /// percentiles of an older report otherwise.
    static func points(_ report: CycleReport) -> [(x: Double, y: Double)] {
        if let histogram = report.latencyHistogram, histogram.totalCount > 0 {
            let last = lastPercentile(count: histogram.totalCount)
            var points: [(x: Double, y: Double)] = []
            for step in histogram.percentiles(ticksPerHalfDistance: 5) {
                points.append((min(step.percentile, last), Double(step.value) / 1000))
                if step.percentile >= last { break }
            }
            return points
        }
        let l = report.latencyMicroseconds
        let last = lastPercentile(count: l.count)
        return [(50, l.p50), (90, l.p90), (99, l.p99), (99.9, l.p999), (last, l.max)]
            .filter { $0.0 <= last }.map { ($0.0, Double($0.1) / 1000) }
    }

    /// The highest percentile `count` samples resolve: the maximum is drawn there rather than at an infinite 100%.
    static func lastPercentile(count: UInt64) -> Double {
        100 * (1 - 1 / Double(max(count, 10)))
    }

    /// A chart of several runs' curves on one log-percentile x axis and a log latency y axis.
    static func chart(id: String, title: String, series: [SVGChart.Series]) -> SVGChart {
        let all = series.flatMap(\.points)
        let xMax = max(2, ceil(position(all.map(\.x).max() ?? 99)))
        let xTicks = (0...Int(xMax)).map { n -> (Double, String) in
            let percentile = 100 * (1 - pow(10, -Double(n)))
            return (percentile, n == 0 ? "0%" : String(format: "%.\(max(0, n - 2))f%%", percentile))
        }
        let values = all.map(\.y).filter { $0 > 0 }
        let yLow = floor(log10(values.min() ?? 0.1))
        let yHigh = max(yLow + 1, ceil(log10(values.max() ?? 1)))
        let yTicks = stride(from: yLow, through: yHigh, by: 1).flatMap { n in
            [1.0, 2, 5].map { m -> (Double, String) in
                let v = m * pow(10, n)
                return (v, v >= 1 ? String(format: "%.0f ms", v) : String(format: "%g ms", v))
            }
        }.filter { log10($0.0) <= yHigh }
        return SVGChart(
            id: id, title: title,
            x: .init(title: "percentile", transform: position, lower: 0, upper: xMax, ticks: xTicks),
            y: .init(
                title: "latency (ms, log scale)", transform: { log10(max($0, 1e-6)) }, lower: yLow, upper: yHigh,
                ticks: yTicks),
            series: series)
    }
}
