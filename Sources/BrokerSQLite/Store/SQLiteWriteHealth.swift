import BrokerCore
import Synchronization

/// Whether the SQLite store could write at its last try: the reason of the last commit the disk refused, until a
/// probe write commits again.
final class SQLiteWriteHealth: Sendable {
    private let failure = Mutex<StoreUnavailable?>(nil)

    /// Why the last commit failed for want of a disk, while no probe has written since; nil when writes succeed.
    var problem: StoreUnavailable? { failure.withLock { $0 } }

    func failed(_ reason: StoreUnavailable) { failure.withLock { $0 = reason } }
    func recovered() { failure.withLock { $0 = nil } }
}
