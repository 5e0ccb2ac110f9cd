import Foundation

/// What a scenario run did, step by step: ✔ passed, ✘ failed (with why and each daemon's recent log), - not run.
public struct ScenarioReport: Sendable {
    public enum Outcome: Sendable, Equatable {
        case passed
        case failed(String)
        case notRun
    }

    public struct Line: Sendable {
        /// 1-based; 0 is the fleet's launch.
        public var number: Int
        public var summary: String
        public var outcome: Outcome
        public var elapsed: Duration

        /// The line as printed, with the failure's explanation indented below it.
        public var text: String {
            let time = outcome == .notRun ? "" : "  [\(ScenarioReport.format(elapsed))]"
            let label = number == 0 ? "   " : String(format: "%2d.", number)
            switch outcome {
            case .passed: return "  ✔ \(label) \(summary)\(time)"
            case .notRun: return "  - \(label) \(summary)  (not run)"
            case .failed(let why):
                let detail = why.split(separator: "\n", omittingEmptySubsequences: false).map { "       | \($0)" }
                    .joined(separator: "\n")
                return "  ✘ \(label) \(summary)\(time)\n\(detail)"
            }
        }
    }

    public var name: String
    public var header: String
    public var lines: [Line]
    public var elapsed: Duration

    public var passed: Bool { lines.allSatisfy { $0.outcome == .passed } }

    /// The closing line: PASSED or FAILED, with counts.
    public var verdict: String {
        let steps = lines.filter { $0.number > 0 }
        let passedSteps = steps.filter { $0.outcome == .passed }.count
        if passed { return "PASSED: \(name): \(steps.count) steps in \(Self.format(elapsed))" }
        let failed = lines.first { if case .failed = $0.outcome { true } else { false } }
        let failure = failed.map {
            $0.number == 0 ? "the fleet did not start" : "step \($0.number) of \(steps.count) failed"
        }
        return "FAILED: \(name): \(failure ?? "failed") (\(passedSteps) passed) in \(Self.format(elapsed))"
    }

    /// The whole report, as `hearth-fleet run` prints it.
    public var text: String { ([header] + lines.map(\.text) + [verdict]).joined(separator: "\n") }

    static func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds < 1 ? "\(Int((seconds * 1000).rounded())) ms" : String(format: "%.2f s", seconds)
    }
}
