/// SplitMix64: the same seed gives the same choices on every machine, so a chaos run's schedule can be replayed.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A generator of its own for one task of a run, derived from the run's seed.
    public func derived(_ stream: UInt64) -> SeededRandom {
        var copy = SeededRandom(seed: state ^ (stream &* 0xD1B5_4A32_D192_ED03))
        _ = copy.next()
        return copy
    }

    /// A duration between `low` and `high` milliseconds.
    public mutating func milliseconds(_ range: ClosedRange<Int>) -> Duration {
        .milliseconds(Int.random(in: range, using: &self))
    }
}
