import Foundation
import HearthLoad

/// The A/B page of `compare --report`, and where pages are written.
extension ReportPage {
    static func compare(
        _ a: CycleReports, _ b: CycleReports, names: (String, String), table: CompareTable
    ) -> String {
        var body = "<h1>hearth-loadtest compare</h1>\n"
        body += "<p>A: <code>\(escape(names.0))</code><br>B: <code>\(escape(names.1))</code></p>\n"
        body += banners(a.machine, label: "A") + banners(b.machine, label: "B")
        var series: [SVGChart.Series] = []
        for (side, reports) in [("A", a), ("B", b)] {
            for (name, run) in named(reports) {
                series.append(
                    .init(
                        name: "\(side) \(name)", key: "\(side.lowercased())-\(name)",
                        points: PercentileCurve.points(run), dashed: name == "relay"))
            }
        }
        body +=
            PercentileCurve.chart(id: "latency-plot", title: "Cycle latency by percentile, A and B", series: series)
            .svg
        body += "<table id=\"comparison\"><tr><th>run</th><th>figure</th><th>A</th><th>B</th><th>B vs A</th></tr>\n"
        for row in table.rows {
            body += "<tr><th>\(escape(row.run))</th><th>\(escape(row.figure))</th>"
            body += "<td>\(CompareTable.format(row.a, count: row.isCount))</td>"
            body += "<td>\(CompareTable.format(row.b, count: row.isCount))</td>"
            body += "<td>\(CompareTable.format(change: row.change))</td></tr>\n"
        }
        body += "</table>\n"
        return page(title: "hearth-loadtest compare", body: body)
    }

    /// Writes `html` as `index.html` in `directory` (made if missing); returns the file's path.
    static func write(_ html: String, to directory: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = URL(fileURLWithPath: directory).appendingPathComponent("index.html").path
        try Data(html.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
