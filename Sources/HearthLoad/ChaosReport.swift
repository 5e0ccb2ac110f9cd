import Foundation

/// What a chaos run did and found.
public struct ChaosReport: Sendable {
    public let options: ChaosOptions
    public let ledger: ChaosLedger
    /// Every loss, duplicate and gap; empty on success.
    public let problems: [String]
    /// Whether everything was delivered before the settle timeout.
    public let settled: Bool
    public let faultTime: Duration
    public let settleTime: Duration

    public var passed: Bool { problems.isEmpty && settled }

    public var text: String {
        let questions = ledger.questions
        let kills = ChaosFault.Kind.allCases.map { "\($0.rawValue) \(ledger.kills[$0] ?? 0)" }.joined(separator: ", ")
        let faults = ChaosFault.allCases.map { "\($0.rawValue) \(ledger.faultCounts[$0] ?? 0)" }.joined(separator: ", ")
        var lines = [
            "chaos run, seed \(options.seed): \(ledger.faults.count) faults in \(format(faultTime)) (\(faults))",
            "  kills: \(kills)",
            "  questions: \(questions.count) asked, \(questions.filter(\.asked.accepted).count) accepted "
                + "(\(ledger.askRetries) ask retries); answers accepted for \(ledger.answers.count), "
                + "\(ledger.refusedAnswers) refused as already answered",
            "  settled in \(format(settleTime))\(settled ? "" : " (timed out)")",
        ]
        if passed {
            lines.append(
                "PASSED: every question answered once, every response delivered once to every child device, "
                    + "every device's log applied without a gap")
        } else {
            lines.append("FAILED: \(problems.count) problems")
            lines += problems.prefix(50).map { "  - " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    private func format(_ duration: Duration) -> String { String(format: "%.1f s", duration.seconds) }
}
