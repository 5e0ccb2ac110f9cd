import Synchronization

/// A token bucket per key (a device id): `rate` tokens a second, at most `burst` saved up.
///
/// A flooding peer first gets refusals it can act on, then, while it keeps flooding, nothing: one refusal per second at
/// most, so that the broker's replies never amplify a flood.
public final class RateLimiter: Sendable {
    public enum Decision: Sendable, Equatable {
        case admit
        /// Refuse with an error reply.
        case refuse
        /// Refuse silently: a refusal was sent less than a second ago.
        case drop
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
        var lastRefusal: ContinuousClock.Instant?
    }

    public let rate: Double
    public let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])

    public init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
    }

    public func admit(_ key: String, now: ContinuousClock.Instant = .now) -> Decision {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(burst, bucket.tokens + seconds * rate)
            bucket.updated = now
            defer {
                buckets[key] = bucket
                // Forget full buckets now and then so that the table stays as small as the set of busy peers.
                if buckets.count > 100_000 { buckets = buckets.filter { $0.value.tokens < burst } }
            }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return .admit
            }
            if let last = bucket.lastRefusal, now - last < .seconds(1) { return .drop }
            bucket.lastRefusal = now
            return .refuse
        }
    }
}
