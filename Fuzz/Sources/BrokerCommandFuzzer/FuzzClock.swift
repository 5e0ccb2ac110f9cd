import Foundation
import Synchronization

/// The broker fuzzer's clock: moved on by each input, so runs do not depend on the wall clock.
final class FuzzClock: Sendable {
    private let value = Mutex(Date(timeIntervalSince1970: 1_750_000_000))

    var now: Date { value.withLock { $0 } }

    func advance(seconds: TimeInterval) { value.withLock { $0 += seconds } }
}
