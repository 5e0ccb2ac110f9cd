import ArgumentParser
import Foundation
import HearthLoad

/// Two `cycle --json` reports as an A/B: a table of each figure and its change, and with `--report` a page with both
/// latency distributions on one plot.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "A/B of two `cycle --json` reports: each figure in A and B and the change; --report plots them.",
        discussion: """
            Compare runs of the same shape (load, families, build) made in the same minutes: on a shared machine the \
            same binary moves by ±10% between runs minutes apart (docs/PERFORMANCE.md).
            """)

    @Argument(help: "The A report (`cycle --json`).") var a: String
    @Argument(help: "The B report.") var b: String
    @Option(help: "Write an HTML page (index.html) with both runs plotted into this directory.") var report: String?

    func run() throws {
        let reportA: CycleReports
        let reportB: CycleReports
        do {
            reportA = try CycleReports.read(a)
            reportB = try CycleReports.read(b)
        } catch {
            throw ValidationError("cannot read the reports: \(error)")
        }
        let table = CompareTable(reportA, reportB)
        print("A: \(a)\nB: \(b)")
        for (name, machine) in [("A", reportA.machine), ("B", reportB.machine)] {
            for warning in machine?.warnings ?? [] { print("\(name): \(warning)") }
        }
        if let loads = Self.differentLoads(reportA.broker, reportB.broker) { print(loads) }
        print(table.text)
        if let report {
            let path = try ReportPage.write(
                ReportPage.compare(reportA, reportB, names: (a, b), table: table), to: report)
            print("report: \(path)")
        }
    }

    /// A note when A and B offered different loads: their figures then differ for that reason too.
    static func differentLoads(_ a: CycleReport?, _ b: CycleReport?) -> String? {
        guard let a, let b else { return nil }
        func load(_ r: CycleReport) -> String {
            let offered =
                r.mode == "open"
                ? String(format: "open loop at %.0f/s", r.targetRate ?? 0) : "closed loop, \(r.inFlight ?? 0) in flight"
            return "\(offered), \(r.families) families, \(r.devices) devices"
        }
        let (loadA, loadB) = (load(a), load(b))
        return loadA == loadB ? nil : "different loads: A \(loadA); B \(loadB)"
    }
}
