import Foundation

/// Repeated timings of one piece of work, reported as a median.
struct Measurement {
    var samples: [Double] = []

    var median: Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Runs `body` `runs` times, recording seconds per run.
    static func time(runs: Int, _ body: () throws -> Void) rethrows -> Measurement {
        var m = Measurement()
        for _ in 0..<runs {
            let start = ContinuousClock.now
            try body()
            let elapsed = ContinuousClock.now - start
            m.samples.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return m
    }
}
