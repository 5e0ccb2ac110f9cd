import HearthCore
import Synchronization

/// Devices cut off for a while after acting as no device does (a command of many frames, a subscription to another
/// topic): ZAP refuses their key until the time is up, and whatever their open connections still send only drops
/// those connections. Nothing is stored: unlike a revocation, it ends by itself and with the broker.
final class CutOffBook: Sendable {
    /// How long a device stays cut off.
    let duration: Duration
    private let until = Mutex<[DeviceID: ContinuousClock.Instant]>([:])

    init(duration: Duration) {
        self.duration = duration
    }

    /// Cuts `device` off from `now` for `duration`; false if it already was (its hostility was already counted).
    @discardableResult
    func cutOff(_ device: DeviceID, now: ContinuousClock.Instant = .now) -> Bool {
        until.withLock { until in
            let already = until[device].map { now < $0 } ?? false
            until[device] = now + duration
            // Expired entries go when another device is cut off: the table holds only recent offenders.
            if !already { until = until.filter { now < $0.value } }
            return !already
        }
    }

    /// Whether `device` is cut off now.
    func contains(_ device: DeviceID, now: ContinuousClock.Instant = .now) -> Bool {
        until.withLock { until in until[device].map { now < $0 } ?? false }
    }
}
