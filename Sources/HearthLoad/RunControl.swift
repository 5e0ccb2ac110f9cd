public import Histogram
public import Synchronization

/// What the coordinator and the shards' threads share: the start signal, live counters for the progress line, and
/// each shard's result.
public final class RunControl: Sendable {
    public let shards: Int
    /// Shards whose devices are all connected, welcomed and subscribed.
    public let ready = Atomic<Int>(0)
    /// Shards that have finished and left a result.
    public let finished = Atomic<Int>(0)
    /// Monotonic nanoseconds at which load starts; 0 until the coordinator gives it.
    public let startNanoseconds = Atomic<UInt64>(0)
    /// Set to end a connect-only run, or to abort.
    public let stop = Atomic<Bool>(false)
    public let sent = Atomic<Int>(0)
    /// Devices welcomed (hello answered) and subscribed (subscription granted) so far.
    public let welcomed = Atomic<Int>(0)
    public let subscribed = Atomic<Int>(0)
    public let completed = Atomic<Int>(0)
    public let errors = Atomic<Int>(0)
    /// Latencies since the last progress line, in microseconds.
    public let interval = Mutex(LatencyHistogram.make())
    public let results = Mutex<[ShardResult]>([])
    public let failure = Mutex<String?>(nil)

    public init(shards: Int) {
        self.shards = shards
    }

    func fail(_ message: String) {
        failure.withLock { if $0 == nil { $0 = message } }
        stop.store(true, ordering: .relaxed)
    }
}

/// The histogram every latency goes into: microseconds, 1 µs to 2 minutes, three significant digits.
public enum LatencyHistogram {
    public static func make() -> Histogram<UInt64> {
        Histogram<UInt64>(
            lowestDiscernibleValue: 1, highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .three)
    }
}

/// One shard's figures at the end of a run.
public struct ShardResult: Sendable {
    /// Cycle latencies (µs) of asks intended inside the measured window, think time excluded.
    public var latency = LatencyHistogram.make()
    /// Asks whose intended send time fell in the window.
    public var sentInWindow = 0
    /// Cycles that completed inside the window (throughput).
    public var completedInWindow = 0
    public var sentTotal = 0
    public var completedTotal = 0
    /// Error replies, and asks resolved at once when a parent should have been asked.
    public var errors = 0
    /// Asks that neither completed nor failed by the end of the drain.
    public var lost = 0
    /// Responses delivered for a question already completed, under a new sequence number.
    public var duplicated = 0
    /// Events received again with a sequence number already applied (pub/sub redelivery; harmless).
    public var redelivered = 0
    /// Gaps in a member's sequence recovered by `sync`.
    public var gapsSynced = 0
    /// Messages (ZeroMQ messages, one per command, reply, event frame or heartbeat) that devices sent to the target or
    /// received from it inside the window.
    public var messagesInWindow = 0
    public var devices = 0
    public var welcomed = 0
    public var subscribed = 0
    /// The first few error texts.
    public var errorSamples: [String] = []

    mutating func add(_ other: ShardResult) {
        latency.add(other.latency)
        sentInWindow += other.sentInWindow
        completedInWindow += other.completedInWindow
        sentTotal += other.sentTotal
        completedTotal += other.completedTotal
        errors += other.errors
        lost += other.lost
        duplicated += other.duplicated
        redelivered += other.redelivered
        gapsSynced += other.gapsSynced
        messagesInWindow += other.messagesInWindow
        devices += other.devices
        welcomed += other.welcomed
        subscribed += other.subscribed
        errorSamples += other.errorSamples.prefix(max(0, 5 - errorSamples.count))
    }

    /// Every shard's result added up.
    public static func merged(_ results: [ShardResult]) -> ShardResult {
        var total = ShardResult()
        for result in results { total.add(result) }
        return total
    }
}
