#if PostgreSQL
import BrokerCore
import Logging
import PostgresNIO
import Synchronization

/// A transaction whose `COMMIT` was sent but whose reply was lost with the connection: it may have committed. Its
/// id is asked of the server (`txid_status`) before the writer's next transaction; if it committed, its commit hook
/// runs then, so the events it stored are delivered and the sequence numbers it took are never taken again.
///
/// `txid_status` answers only for the server the transaction went to, and only while it has not restarted: a
/// promoted standby, or the same server after a crash, may never have seen the transaction and hands its id to
/// another one (it said "committed" for a transaction a failover had lost, and its hook published events that were
/// never stored). A commit sent to another incarnation of the server is therefore in doubt: its hook never runs and
/// `inDoubt` is called, for the broker to drop what it holds in memory and read it again from the database.
///
/// Held by the store for the writer's queue, which alone settles it, while the cluster sets `inDoubt` from elsewhere:
/// each is behind a lock, taken once per transaction (a check that no commit is pending) and never per statement.
final class UnsettledCommit: Sendable {
    struct Pending: Sendable {
        var xid: Int64
        /// The server's incarnation (`PostgresSession.incarnation`) the transaction was sent to.
        var incarnation: String?
        var committed: @Sendable () -> Void
    }

    private let pending = Mutex<Pending?>(nil)
    /// Called on the writer's queue when a pending commit's outcome cannot be known.
    let inDoubt = Mutex<(@Sendable () -> Void)?>(nil)

    /// Remembers a commit whose reply was lost, to settle before the next transaction (or now, `settle`).
    func hold(_ commit: Pending) {
        pending.withLock { $0 = commit }
    }

    /// Settles the pending commit, if any: true when it had committed (its hook has run). Throws while the server
    /// cannot say (unreachable, or the transaction still in progress), keeping it pending, and once when the server
    /// was replaced or restarted since (`inDoubt` has been called; the commit is forgotten).
    func settle(session: PostgresSession, logger: Logger) throws -> Bool {
        guard let pending = pending.withLock({ $0 }) else { return false }
        let connection = try session.connected()
        guard pending.incarnation == nil || session.incarnation == pending.incarnation else {
            self.pending.withLock { $0 = nil }
            logger.error(
                "a commit whose reply was lost went to a server since restarted or replaced: its outcome is unknown",
                metadata: [
                    "xid": "\(pending.xid)", "sentTo": "\(pending.incarnation ?? "?")",
                    "now": "\(session.incarnation ?? "?")",
                ])
            inDoubt.withLock { $0 }?()
            throw StoreUnavailable(description: "a commit's outcome is unknown: the server was replaced or restarted")
        }
        let status =
            try connection.result(of: "SELECT txid_status(\(pending.xid))", logger: logger).rows
            .first?.decode(String?.self) ?? nil
        switch status {
        case "committed":
            self.pending.withLock { $0 = nil }
            logger.notice("a commit whose reply was lost had committed", metadata: ["xid": "\(pending.xid)"])
            pending.committed()
            return true
        case "in progress":
            throw StoreUnavailable(description: "a transaction whose commit reply was lost is still in progress")
        default:
            // Aborted, or too old for the server to know (it cannot be: it is the last one of this broker).
            self.pending.withLock { $0 = nil }
            return false
        }
    }
}
#endif
