import Foundation

/// A line chart as inline SVG: axes with gridlines, one path per series, a legend. Values go through each axis's
/// transform (a log scale is `log10`), so the chart itself only ever draws straight lines in a linear space.
struct SVGChart {
    struct Axis {
        var title: String
        /// Where a value sits on the axis (identity for a linear axis).
        var transform: (Double) -> Double = { $0 }
        /// The axis's range, in transformed units.
        var lower: Double
        var upper: Double
        /// Gridlines: a value (untransformed) and its label.
        var ticks: [(Double, String)]
    }

    struct Series {
        var name: String
        /// The key the page's CSS colours it by and tests find it by (`data-series`).
        var key: String
        var points: [(x: Double, y: Double)]
        var dashed = false
    }

    var id: String
    var title: String
    var x: Axis
    var y: Axis
    var series: [Series]
    /// A shaded stretch of the x axis and its label (the measured window), drawn under the series.
    var band: (from: Double, to: Double, label: String)? = nil
    var width = 820.0
    var height = 360.0

    private let left = 70.0, right = 20.0, top = 52.0, bottom = 48.0

    private func px(_ value: Double) -> Double {
        let t = (x.transform(value) - x.lower) / max(x.upper - x.lower, 1e-12)
        return left + min(max(t, 0), 1) * (width - left - right)
    }

    private func py(_ value: Double) -> Double {
        let t = (y.transform(value) - y.lower) / max(y.upper - y.lower, 1e-12)
        return height - bottom - min(max(t, 0), 1) * (height - top - bottom)
    }

    var svg: String {
        var out = """
            <svg id="\(id)" class="chart" viewBox="0 0 \(f(width)) \(f(height))" role="img" \
            aria-label="\(ReportPage.escape(title))"><title>\(ReportPage.escape(title))</title>
            <text class="chart-title" x="\(f(left))" y="20">\(ReportPage.escape(title))</text>

            """
        out += grid()
        if let band {
            let (x0, x1) = (px(band.from), px(band.to))
            out += """
                <rect class="band" x="\(f(x0))" y="\(f(top))" width="\(f(x1 - x0))" height="\(f(height - top - bottom))"/>\
                <text class="tick" x="\(f(x1 - 4))" y="\(f(top + 30))" text-anchor="end">\(ReportPage.escape(band.label))</text>

                """
        }
        for (index, s) in series.enumerated() where !s.points.isEmpty {
            let d = s.points.enumerated().map { i, p in (i == 0 ? "M" : "L") + "\(f(px(p.x))),\(f(py(p.y)))" }
            out += """
                <path class="series s\(index)\(s.dashed ? " dashed" : "")" data-series="\(s.key)" \
                d="\(d.joined(separator: " "))"><title>\(ReportPage.escape(s.name))</title></path>

                """
            // A short run has few points: mark them, or two points read as one line from nowhere.
            if s.points.count <= 60 {
                for p in s.points {
                    out += "<circle class=\"dot s\(index)\" data-series=\"\(s.key)\" cx=\"\(f(px(p.x)))\" "
                    out += "cy=\"\(f(py(p.y)))\" r=\"2.5\"/>"
                }
                out += "\n"
            }
        }
        out += legend()
        return out + "</svg>\n"
    }

    private func grid() -> String {
        var out = ""
        for (value, label) in x.ticks {
            let gx = f(px(value))
            out += "<line class=\"grid\" x1=\"\(gx)\" x2=\"\(gx)\" y1=\"\(f(top))\" y2=\"\(f(height - bottom))\"/>"
            out += "<text class=\"tick\" x=\"\(gx)\" y=\"\(f(height - bottom + 16))\" text-anchor=\"middle\">"
            out += "\(ReportPage.escape(label))</text>\n"
        }
        for (value, label) in y.ticks {
            let gy = f(py(value))
            out += "<line class=\"grid\" x1=\"\(f(left))\" x2=\"\(f(width - right))\" y1=\"\(gy)\" y2=\"\(gy)\"/>"
            out += "<text class=\"tick\" x=\"\(f(left - 6))\" y=\"\(gy)\" dy=\"4\" text-anchor=\"end\">"
            out += "\(ReportPage.escape(label))</text>\n"
        }
        out += """
            <text class="axis-title" x="\(f((left + width - right) / 2))" y="\(f(height - 8))" text-anchor="middle">\
            \(ReportPage.escape(x.title))</text>
            <text class="axis-title" transform="translate(16 \(f((top + height - bottom) / 2))) rotate(-90)" \
            text-anchor="middle">\(ReportPage.escape(y.title))</text>

            """
        return out
    }

    private func legend() -> String {
        var out = ""
        for (index, s) in series.enumerated() {
            let lx = left + Double(index) * 180
            out += """
                <g class="legend" data-series="\(s.key)"><line class="series s\(index)\(s.dashed ? " dashed" : "")" \
                x1="\(f(lx))" x2="\(f(lx + 24))" y1="\(f(top - 12))" y2="\(f(top - 12))"/>\
                <text x="\(f(lx + 30))" y="\(f(top - 8))">\(ReportPage.escape(s.name))</text></g>

                """
        }
        return out
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Round gridlines for a linear axis from 0 to a little over `maximum`: steps of 1, 2 or 5 × 10ⁿ.
    static func linearTicks(upTo maximum: Double, format: (Double) -> String) -> (upper: Double, [(Double, String)]) {
        let top = max(maximum, 1e-9) * 1.1
        let magnitude = pow(10, floor(log10(top / 5)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { top / $0 <= 6 } ?? magnitude * 10
        let count = Int(ceil(top / step))
        return (Double(count) * step, (0...count).map { (Double($0) * step, format(Double($0) * step)) })
    }
}
