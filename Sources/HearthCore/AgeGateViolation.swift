/// The rule an age range request broke. Each case names it, unlike Apple's bare `invalidRequest`.
public enum AgeGateViolation: Error, Hashable, Sendable, CustomStringConvertible {
    /// Fewer than 1 or more than 3 gates.
    case gateCount(Int)
    /// A gate outside `AgeRangeRules.gateLimits`.
    case gateOutOfRange(Int)
    /// Gates not in strictly ascending order.
    case notAscending([Int])
    /// A range narrower than 2 years: `lower...upper` (nil lower: from 0).
    case rangeTooNarrow(lower: Int?, upper: Int)

    public var description: String {
        switch self {
        case .gateCount(let count):
            "an age range request names 1 to 3 age gates, this one names \(count)"
        case .gateOutOfRange(let gate):
            "age gate \(gate) is outside \(AgeRangeRules.gateLimits.lowerBound)...\(AgeRangeRules.gateLimits.upperBound)"
        case .notAscending(let gates):
            "age gates must be in strictly ascending order, got \(gates.map(String.init).joined(separator: ", "))"
        case .rangeTooNarrow(let lower, let upper):
            "every range must span at least 2 years; \(lower.map(String.init) ?? "0")...\(upper) spans \(upper - (lower ?? 0) + 1)"
        }
    }
}
