import Foundation
import HearthLoad

/// Two `cycle --json` reports side by side: for each run both have (broker, relay, …), each figure in A and in B and
/// B's change from A.
struct CompareTable {
    struct Row {
        var run: String
        var figure: String
        var a: Double?
        var b: Double?
        /// (B − A) / A in percent; nil when either is missing or A is 0.
        /// Errors, lost, duplicated: whole numbers.
        var isCount: Bool { ["errors", "lost", "duplicated"].contains(figure) }
        var change: Double? {
            guard let a, let b, a != 0 else { return nil }
            return (b - a) / a * 100
        }
    }

    var rows: [Row] = []

    init(_ a: CycleReports, _ b: CycleReports) {
        let bRuns = Dictionary(ReportPage.named(b), uniquingKeysWith: { first, _ in first })
        for (name, runA) in ReportPage.named(a) {
            guard let runB = bRuns[name] else { continue }
            for (figure, value) in Self.figures {
                rows.append(Row(run: name, figure: figure, a: value(runA), b: value(runB)))
            }
        }
    }

    static let figures: [(String, @Sendable (CycleReport) -> Double?)] = [
        ("cycles/s", { $0.cyclesPerSecond }),
        ("CPU µs/cycle", { $0.cpuMicrosecondsPerCycle($0.server.cpuPercent) }),
        ("messages/cycle", { $0.messagesPerCycle }),
        ("p50 ms", { Double($0.latencyMicroseconds.p50) / 1000 }),
        ("p90 ms", { Double($0.latencyMicroseconds.p90) / 1000 }),
        ("p99 ms", { Double($0.latencyMicroseconds.p99) / 1000 }),
        ("p99.9 ms", { Double($0.latencyMicroseconds.p999) / 1000 }),
        ("max ms", { Double($0.latencyMicroseconds.max) / 1000 }),
        ("errors", { Double($0.errors) }),
        ("lost", { Double($0.lost) }),
        ("duplicated", { Double($0.duplicated) }),
    ]

    /// Counts whole; other figures whole from 100 up, to two decimals below.
    static func format(_ value: Double?, count: Bool = false) -> String {
        if count, let value { return String(format: "%.0f", value) }
        guard let value else { return "?" }
        return abs(value) >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }

    static func format(change: Double?) -> String {
        change.map { String(format: "%+.1f%%", $0) } ?? ""
    }

    /// The table as text, columns aligned.
    var text: String {
        let header = ["run", "figure", "A", "B", "B vs A"]
        let cells = rows.map {
            [
                $0.run, $0.figure, Self.format($0.a, count: $0.isCount), Self.format($0.b, count: $0.isCount),
                Self.format(change: $0.change),
            ]
        }
        let widths = header.indices.map { column in
            ([header] + cells).map { $0[column].count }.max() ?? 0
        }
        func line(_ row: [String]) -> String {
            var text = row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return column < 2 ? cell + pad : pad + cell
            }.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        return ([line(header)] + cells.map(line)).joined(separator: "\n")
    }
}
