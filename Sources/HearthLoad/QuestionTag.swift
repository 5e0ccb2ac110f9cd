import CEpoll
import Foundation

/// Question ids that say which run and shard asked them and their number in it, so a response is matched to its
/// ask without a hash table, and one from another run is recognised and ignored.
///
/// Layout (16 bytes): run tag (4), shard (2), zero (2), counter (8), all big-endian. The protocol does not check
/// UUID version bits, and these ids are unique per run as the protocol requires. Such ids ascend, so the broker's
/// indexes keyed by question id are appended to; with `random` the first 8 bytes are XORed with a hash of the
/// counter, so that ids land all over those indexes as apps' random UUIDs do (`cycle --random-ids`).
enum QuestionTag {
    static func uuid(run: UInt32, shard: UInt16, counter: UInt64, random: Bool = false) -> UUID {
        let head = (UInt64(run) << 32 | UInt64(shard) << 16) ^ (random ? scramble(counter) : 0)
        var b = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            b[i] = UInt8(truncatingIfNeeded: head >> (56 - 8 * i))
            b[8 + i] = UInt8(truncatingIfNeeded: counter >> (56 - 8 * i))
        }
        return UUID(
            uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
        )
    }

    static func parse(_ id: UUID, random: Bool = false) -> (run: UInt32, shard: UInt16, counter: UInt64) {
        let u = id.uuid
        var head: UInt64 = 0
        for byte in [u.0, u.1, u.2, u.3, u.4, u.5, u.6, u.7] { head = head << 8 | UInt64(byte) }
        var counter: UInt64 = 0
        for byte in [u.8, u.9, u.10, u.11, u.12, u.13, u.14, u.15] { counter = counter << 8 | UInt64(byte) }
        if random { head ^= scramble(counter) }
        return (UInt32(truncatingIfNeeded: head >> 32), UInt16(truncatingIfNeeded: head >> 16), counter)
    }

    /// SplitMix64's finalizer: neighbouring counters give unrelated bits.
    private static func scramble(_ counter: UInt64) -> UInt64 {
        var z = counter &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
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
