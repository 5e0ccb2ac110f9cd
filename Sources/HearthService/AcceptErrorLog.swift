import Foundation
import Logging
import Metrics
import NIOCore
import Synchronization

/// What a listener does when `accept` fails: out of descriptors (`EMFILE`, `ENFILE`) or kernel memory (`ENOBUFS`,
/// `ENOMEM`) is the state of the process or host, not of the listener, and passes when connections close. It waits
/// a moment before accepting again (a level-triggered poll would otherwise spin on the queued connection), counts the
/// error, and logs at most once a minute, with how many failed since.
final class AcceptErrorLog: Sendable {
    static let backoff: TimeAmount = .milliseconds(200)
    static let logInterval: Duration = .seconds(60)

    private let listener: String
    private let logger: Logger
    private let counter: Counter
    private let state = Mutex<(last: ContinuousClock.Instant?, unlogged: Int)>((nil, 0))

    init(listener: String, logger: Logger) {
        self.listener = listener
        self.logger = logger
        counter = Counter(label: "hearth_http_accept_errors_total", dimensions: [("listener", listener)])
    }

    /// The pause before the next `accept` after `error`; every error is transient to a listener.
    func backoff(after error: IOError) -> TimeAmount? {
        counter.increment()
        let now = ContinuousClock.now
        let due = state.withLock { state -> Int? in
            state.unlogged += 1
            if let last = state.last, now - last < Self.logInterval { return nil }
            state.last = now
            defer { state.unlogged = 0 }
            return state.unlogged
        }
        if let due {
            logger.warning(
                "cannot accept connections; retrying",
                metadata: [
                    "listener": "\(listener)", "error": "\(error)", "errors": "\(due)",
                    "next": "logged again in a minute at the earliest",
                ])
        }
        return Self.backoff
    }
}
