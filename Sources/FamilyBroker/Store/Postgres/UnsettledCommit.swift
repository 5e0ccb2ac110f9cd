import Logging
import PostgresNIO

/// A transaction whose `COMMIT` was sent but whose reply was lost with the connection: it may have committed. Its
/// id is asked of the server (`txid_status`) before the writer's next transaction; if it committed, its commit hook
/// runs then, so the events it stored are delivered and the sequence numbers it took are never taken again.
///
/// Only touched on the writer's queue.
final class UnsettledCommit: @unchecked Sendable {
    struct Pending {
        var xid: Int64
        var committed: () -> Void
    }

    var pending: Pending?

    /// Settles the pending commit, if any: true when it had committed (its hook has run). Throws while the server
    /// cannot say (unreachable, or the transaction still in progress), keeping it pending.
    func settle(session: PostgresSession, logger: Logger) throws -> Bool {
        guard let pending else { return false }
        let connection = try session.connected()
        let status =
            try connection.result(of: "SELECT txid_status(\(pending.xid))", logger: logger).rows
            .first?.decode(String?.self) ?? nil
        switch status {
        case "committed":
            self.pending = nil
            logger.notice("a commit whose reply was lost had committed", metadata: ["xid": "\(pending.xid)"])
            pending.committed()
            return true
        case "in progress":
            throw StoreUnavailable(description: "a transaction whose commit reply was lost is still in progress")
        default:
            // Aborted, or too old for the server to know (it cannot be: it is the last one of this broker).
            self.pending = nil
            return false
        }
    }
}
