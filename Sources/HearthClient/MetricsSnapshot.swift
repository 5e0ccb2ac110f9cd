import Foundation

/// A daemon's `/metrics` page parsed from the Prometheus text format: one value per series.
public struct MetricsSnapshot: Sendable, Equatable {
    /// One series: a metric name, its labels, its value.
    public struct Sample: Sendable, Equatable {
        public var name: String
        public var labels: [String: String]
        public var value: Double
    }

    public var samples: [Sample]

    /// Parses the text format; lines it cannot read (there should be none) are skipped.
    public init(text: String) {
        samples = text.split(separator: "\n").compactMap { Self.parse(Substring($0)) }
    }

    /// The value of the series with exactly these labels.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// The sum over every series of a metric, whatever its labels (0 if it has none).
    public func total(_ name: String) -> Double {
        samples.filter { $0.name == name }.reduce(0) { $0 + $1.value }
    }

    /// Each label value of a metric with its value, e.g. errors by code.
    public func byLabel(_ name: String, _ label: String) -> [String: Double] {
        var result: [String: Double] = [:]
        for sample in samples where sample.name == name {
            if let key = sample.labels[label] { result[key, default: 0] += sample.value }
        }
        return result
    }

    /// An upper bound on the `quantile` of a histogram, from its cumulative buckets; nil if it has no observations.
    public func histogramQuantile(_ name: String, _ quantile: Double) -> Double? {
        let buckets = samples.filter { $0.name == name + "_bucket" }
            .compactMap { sample in
                sample.labels["le"].flatMap { Double($0 == "+Inf" ? "inf" : $0) }.map { ($0, sample.value) }
            }
            .sorted { $0.0 < $1.0 }
        guard let count = buckets.last?.1, count > 0 else { return nil }
        return buckets.first { $0.1 >= quantile * count }?.0
    }

    private static func parse(_ line: Substring) -> Sample? {
        let line = line.trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty, !line.hasPrefix("#") else { return nil }
        var labels: [String: String] = [:]
        let name: String
        let rest: Substring
        if let brace = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}") {
            name = String(line[..<brace])
            labels = parseLabels(line[line.index(after: brace)..<close])
            rest = line[line.index(after: close)...]
        } else if let space = line.firstIndex(of: " ") {
            name = String(line[..<space])
            rest = line[space...]
        } else {
            return nil
        }
        guard let valueText = rest.split(separator: " ").first else { return nil }
        let value: Double? =
            switch valueText {
            case "+Inf": .infinity
            case "-Inf": -.infinity
            case "NaN": .nan
            default: Double(valueText)
            }
        return value.map { Sample(name: name, labels: labels, value: $0) }
    }

    private static func parseLabels(_ text: Substring) -> [String: String] {
        var labels: [String: String] = [:]
        var index = text.startIndex
        while index < text.endIndex {
            guard let equals = text[index...].firstIndex(of: "=") else { break }
            let key = text[index..<equals].trimmingCharacters(in: CharacterSet(charactersIn: ", "))
            var cursor = text.index(after: equals)
            guard cursor < text.endIndex, text[cursor] == "\"" else { break }
            cursor = text.index(after: cursor)
            var value = ""
            while cursor < text.endIndex, text[cursor] != "\"" {
                if text[cursor] == "\\", text.index(after: cursor) < text.endIndex {
                    cursor = text.index(after: cursor)
                    value.append(text[cursor] == "n" ? "\n" : text[cursor])
                } else {
                    value.append(text[cursor])
                }
                cursor = text.index(after: cursor)
            }
            labels[key] = value
            index = cursor < text.endIndex ? text.index(after: cursor) : cursor
        }
        return labels
    }
}
