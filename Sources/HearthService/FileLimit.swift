import Foundation
public import Logging
import Metrics

/// The process's limit on open descriptors (`RLIMIT_NOFILE`). Every connection, ZeroMQ's and HTTP's alike, takes one;
/// the soft limit a service manager gives by default (1,024) is far below what a broker of many devices needs, while
/// the hard limit is the administrator's bound. Daemons raise the soft limit to the hard one at start.
public enum FileLimit {
    /// The soft and the hard limit now.
    public static func current() -> (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return (0, 0) }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// Raises the soft limit to the hard one; returns the limits after (unchanged if the kernel refuses).
    @discardableResult
    public static func raise() -> (soft: UInt64, hard: UInt64) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return current() }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return current()
    }

    /// Raises the soft limit, logs both limits, and reports them as `hearth_open_files_limit{kind}` (read again at
    /// every scrape, so a limit changed from outside, `prlimit --pid`, shows).
    public static func raiseAndReport(logger: Logger) {
        let before = current()
        let after = raise()
        logger.info(
            "open descriptor limit",
            metadata: ["soft": "\(after.soft)", "hard": "\(after.hard)", "softAtStart": "\(before.soft)"])
        if after.soft < 4096 {
            logger.warning(
                "the open descriptor limit is low: each device connection takes one (set LimitNOFILE)",
                metadata: ["soft": "\(after.soft)"])
        }
        record()
    }

    /// Sets the gauges to the limits now.
    public static func record() {
        let now = current()
        Gauge(label: "hearth_open_files_limit", dimensions: [("kind", "soft")]).record(Double(now.soft))
        Gauge(label: "hearth_open_files_limit", dimensions: [("kind", "hard")]).record(Double(now.hard))
    }
}
