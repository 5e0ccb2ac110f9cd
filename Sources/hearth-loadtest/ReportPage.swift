import Foundation
import HearthLoad

/// The load test's report as one self-contained HTML page (inline CSS, SVG and a few lines of script, nothing
/// fetched), for a person to look at: warnings, verdicts against the targets, the latency distributions on one
/// log-percentile plot, throughput and CPU per second, and a table of the figures.
enum ReportPage {
    /// The page for one `cycle` run.
    static func cycle(_ reports: CycleReports, command: String) -> String {
        let runs = named(reports)
        var body = "<h1>hearth-loadtest cycle</h1>\n<p class=\"command\"><code>\(escape(command))</code></p>\n"
        body += banners(reports.machine)
        body += "<h2>Targets (docs/PERFORMANCE.md)</h2>\n<ul id=\"verdicts\">\n"
        for verdict in reports.verdicts {
            let outcome = verdict.outcome.rawValue.replacingOccurrences(of: " ", with: "-")
            body += "<li class=\"verdict \(outcome)\" data-target=\"\(verdict.key)\">"
            body += "<b>\(escape(verdict.outcome.rawValue))</b> \(escape(verdict.target)): \(escape(verdict.detail))"
            body += "</li>\n"
        }
        body += "</ul>\n"
        if let comparison = reports.relayComparison {
            body += "<p id=\"relay-comparison\">\(escape(comparison.text))</p>\n"
        }
        let curves = runs.map { name, run in
            SVGChart.Series(name: name, key: name, points: PercentileCurve.points(run), dashed: name == "relay")
        }
        body += PercentileCurve.chart(id: "latency-plot", title: "Cycle latency by percentile", series: curves).svg
        body += timeline(runs)
        body += table(runs.map { ($0.0, $0.1) })
        return page(title: "hearth-loadtest cycle", body: body)
    }

    /// The runs of a report by name, in the order they are shown.
    static func named(_ reports: CycleReports) -> [(String, CycleReport)] {
        var runs: [(String, CycleReport)] = []
        if let broker = reports.broker { runs.append(("broker", broker)) }
        if let postgres = reports.brokerPostgres { runs.append(("broker-postgres", postgres)) }
        for (name, run) in (reports.cluster?.brokers ?? [:]).sorted(by: { $0.key < $1.key }) {
            runs.append((name, run))
        }
        if let relay = reports.baseline { runs.append(("relay", relay)) }
        return runs
    }

    /// The warnings of a debug build and of a loaded machine, and the machine's line; `label` names the run on a page
    /// with two (`A: `) and prefixes the elements' ids (`a-debug-banner`).
    static func banners(_ machine: MachineState?, label: String = "") -> String {
        guard let machine else { return "" }
        let prefix = label.isEmpty ? "" : label.lowercased() + "-"
        let lead = label.isEmpty ? "" : label + ": "
        var out = ""
        if machine.isDebug, let text = machine.warnings.first(where: { $0.hasPrefix("DEBUG") }) {
            out += "<div class=\"banner\" id=\"\(prefix)debug-banner\">\(escape(lead + text))</div>\n"
        }
        if machine.isLoaded, let text = machine.warnings.first(where: { $0.hasPrefix("LOADED") }) {
            out += "<div class=\"banner\" id=\"\(prefix)load-banner\">\(escape(lead + text))</div>\n"
        }
        let load = [machine.loadAverageAtStart, machine.loadAverageAtEnd].map {
            $0.map { String(format: "%.2f", $0) } ?? "?"
        }
        out +=
            "<p class=\"machine\">\(escape(lead))\(machine.build) build, \(machine.cores) cores, load average \(load[0]) at the "
        out += "start and \(load[1]) at the end</p>\n"
        return out
    }

    /// Throughput and CPU per second of each run, the measured window shaded by its phase.
    static func timeline(_ runs: [(String, CycleReport)]) -> String {
        let timed = runs.filter { $0.1.timeline?.isEmpty == false }
        guard !timed.isEmpty else { return "" }
        let seconds = timed.flatMap { $0.1.timeline ?? [] }.map(\.seconds).max() ?? 1
        let (xUpper, xTicks) = SVGChart.linearTicks(upTo: seconds) { String(format: "%g s", $0) }
        let first = timed[0].1
        let window = (first.warmupSeconds, first.warmupSeconds + first.durationSeconds, "measured")
        func chart(_ id: String, _ title: String, _ axis: String, _ value: (CycleReport.Second) -> Double?) -> String {
            let series = timed.map { name, run in
                SVGChart.Series(
                    name: name, key: name,
                    points: (run.timeline ?? []).compactMap { s in value(s).map { (s.seconds, $0) } },
                    dashed: name == "relay")
            }
            let top = series.flatMap(\.points).map(\.y).max() ?? 1
            let (yUpper, yTicks) = SVGChart.linearTicks(upTo: top) { String(format: "%g", $0) }
            return SVGChart(
                id: id, title: title,
                x: .init(
                    title: "seconds since the load started", lower: 0, upper: xUpper,
                    ticks: xTicks),
                y: .init(title: axis, lower: 0, upper: yUpper, ticks: yTicks), series: series, band: window, height: 280
            ).svg
        }
        return chart("throughput-plot", "Cycles completed per second", "cycles/s") { Double($0.cycles) }
            + chart("cpu-plot", "Target process CPU per second", "% of one core") { $0.cpuPercent }
    }

    /// The figures of each run side by side, messages per cycle among them.
    static func table(_ runs: [(String, CycleReport)]) -> String {
        func ms(_ us: UInt64) -> String { String(format: "%.2f", Double(us) / 1000) }
        func opt(_ value: Double?, _ format: String) -> String { value.map { String(format: format, $0) } ?? "?" }
        let rows: [(String, (CycleReport) -> String)] = [
            ("load", { $0.mode == "open" ? opt($0.targetRate, "open, %.0f/s") : "closed, \($0.inFlight ?? 0)" }),
            ("devices", { "\($0.devices)" }),
            ("cycles/s", { String(format: "%.0f", $0.cyclesPerSecond) }),
            ("CPU µs per cycle", { opt($0.cpuMicrosecondsPerCycle($0.server.cpuPercent), "%.0f") }),
            ("CPU % of a core", { opt($0.server.cpuPercent, "%.0f") }),
            ("messages per cycle", { opt($0.messagesPerCycle, "%.2f") }),
            ("p50 ms", { ms($0.latencyMicroseconds.p50) }), ("p90 ms", { ms($0.latencyMicroseconds.p90) }),
            ("p99 ms", { ms($0.latencyMicroseconds.p99) }), ("p99.9 ms", { ms($0.latencyMicroseconds.p999) }),
            ("max ms", { ms($0.latencyMicroseconds.max) }),
            ("errors / lost / duplicated", { "\($0.errors) / \($0.lost) / \($0.duplicated)" }),
        ]
        var out = "<table id=\"figures\"><tr><th></th>"
        out += runs.map { "<th>\(escape($0.0))</th>" }.joined() + "</tr>\n"
        for (label, value) in rows {
            let key = label.lowercased().filter { $0.isLetter || $0.isNumber }
            out += "<tr data-row=\"\(key)\"><th>\(escape(label))</th>"
            out += runs.map { "<td>\(escape(value($0.1)))</td>" }.joined() + "</tr>\n"
        }
        return out + "</table>\n"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// The document around `body`; the script lets a click on a legend entry hide or show its series.
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <style>
        body { font: 14px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #222; max-width: 860px; }
        h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 16px 0 4px; }
        .command code { font-size: 12px; color: #555; }
        .banner { background: #fde2e1; border: 1px solid #c62828; color: #8e1b1b; padding: 6px 10px; margin: 6px 0;
          font-weight: 600; }
        .machine { color: #555; margin: 4px 0; }
        #verdicts { list-style: none; padding: 0; margin: 0; }
        .verdict { padding: 2px 8px; margin: 2px 0; border-left: 6px solid #999; }
        .verdict.met { border-color: #2e7d32; } .verdict.not-met { border-color: #c62828; }
        .verdict.not-measured { color: #666; }
        .chart { width: 100%; height: auto; display: block; margin: 10px 0; }
        .chart-title { font-weight: 600; font-size: 14px; }
        .grid { stroke: #e3e3e3; } .tick, .axis-title { font-size: 11px; fill: #555; }
        .series { fill: none; stroke-width: 2.2; } .band { fill: #eef4fb; }
        .dot.s0 { fill: #1565c0; } .dot.s1 { fill: #e65100; } .dot.s2 { fill: #2e7d32; } .dot.s3 { fill: #6a1b9a; } .dashed { stroke-dasharray: 6 4; }
        .s0 { stroke: #1565c0; } .s1 { stroke: #e65100; } .s2 { stroke: #2e7d32; } .s3 { stroke: #6a1b9a; }
        .legend { cursor: pointer; font-size: 12px; } .hidden { opacity: 0.15; }
        table { border-collapse: collapse; margin: 10px 0; } td, th { padding: 2px 10px; text-align: right; }
        tr:nth-child(even) { background: #f5f5f5; } th:first-child { text-align: left; font-weight: normal; }
        #comparison th { text-align: left; font-weight: normal; } #comparison tr:first-child th { font-weight: 600; }
        </style></head><body>
        \(body)
        <script>
        for (const item of document.querySelectorAll('.legend')) {
          item.addEventListener('click', () => {
            const svg = item.closest('svg');
            for (const e of svg.querySelectorAll('[data-series="' + item.dataset.series + '"]'))
              e.classList.toggle('hidden');
          });
        }
        </script>
        </body></html>

        """
    }
}
