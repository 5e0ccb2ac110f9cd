import Foundation

/// A duration written for people: `500ms`, `2s`, `10m`, `1h`, `30d`, or a bare number of seconds.
public struct ScenarioDuration: Sendable, Hashable, Decodable, CustomStringConvertible {
    public var seconds: Double

    public init(seconds: Double) {
        self.seconds = seconds
    }

    public init(parsing text: String) throws {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        for (unit, scale) in units where trimmed.hasSuffix(unit) {
            if let value = Double(trimmed.dropLast(unit.count).trimmingCharacters(in: .whitespaces)), value >= 0 {
                seconds = value * scale
                return
            }
        }
        guard let value = Double(trimmed), value >= 0 else {
            throw ScenarioError("'\(text)' is not a duration: write e.g. 500ms, 2s, 10m, 1h, 30d")
        }
        seconds = value
    }

    /// A bad duration names where it stands (`step 3, wait: 'soon' is not a duration…`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            if let number = try? container.decode(Double.self) {
                guard number >= 0 else { throw ScenarioError("\(number) is not a duration: it is negative") }
                self.init(seconds: number)
            } else {
                try self.init(parsing: try container.decode(String.self))
            }
        } catch let error as ScenarioError {
            throw ScenarioError("\(Scenario.path(decoder.codingPath)): \(error.message)")
        }
    }

    public var duration: Duration { .milliseconds(Int((seconds * 1000).rounded())) }

    public var description: String {
        for (unit, scale) in [("d", 86_400.0), ("h", 3600), ("m", 60), ("s", 1)]
        where seconds >= scale && seconds.truncatingRemainder(dividingBy: scale) == 0 {
            return "\(Int(seconds / scale))\(unit)"
        }
        return "\(Int((seconds * 1000).rounded()))ms"
    }
}
