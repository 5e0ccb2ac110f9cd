import Foundation

/// Question ids that say which run and shard asked them and their number in it, so a response is matched to its
/// ask without a hash table, and one from another run is recognised and ignored.
///
/// Layout (16 bytes): run tag (4), shard (2), zero (2), counter (8), all big-endian. The protocol does not check
/// UUID version bits, and these ids are unique per run as the protocol requires.
enum QuestionTag {
    static func uuid(run: UInt32, shard: UInt16, counter: UInt64) -> UUID {
        var b = [UInt8](repeating: 0, count: 16)
        for i in 0..<4 { b[i] = UInt8(truncatingIfNeeded: run >> (24 - 8 * i)) }
        b[4] = UInt8(truncatingIfNeeded: shard >> 8)
        b[5] = UInt8(truncatingIfNeeded: shard)
        for i in 0..<8 { b[8 + i] = UInt8(truncatingIfNeeded: counter >> (56 - 8 * i)) }
        return UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }

    static func parse(_ id: UUID) -> (run: UInt32, shard: UInt16, counter: UInt64) {
        let u = id.uuid
        let run = UInt32(u.0) << 24 | UInt32(u.1) << 16 | UInt32(u.2) << 8 | UInt32(u.3)
        let shard = UInt16(u.4) << 8 | UInt16(u.5)
        var counter: UInt64 = 0
        for byte in [u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15] { counter = counter << 8 | UInt64(byte) }
        return (run, shard, counter)
    }
}

/// CLOCK_MONOTONIC in nanoseconds: what intended send times and latencies are measured in.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

extension Duration {
    /// Whole nanoseconds (negative durations give 0).
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
