import Logging
import NIOCore
import PostgresNIO

extension PostgresConnection {
    /// Runs `query` and blocks until its result, or throws `ChannelError.ioOnClosedChannel` at once when the
    /// connection is already closed. Every statement of the store goes through here, never through
    /// `query(_:logger:).wait()`: postgres-nio (1.33) drops a query written to a connection whose channel has closed
    /// without completing its future, so that wait never ended. A writer that sent its next statement, or its
    /// ROLLBACK, after the server or the network dropped the connection blocked its queue for good: the broker kept
    /// its leases and answered nothing (issue 20). Checked and written on the connection's event loop, where the
    /// channel cannot close in between; a connection that closes later fails the query itself.
    func result(of query: PostgresQuery, logger: Logger) throws -> PostgresQueryResult {
        try eventLoop.flatSubmit {
            guard !self.isClosed else { return self.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
            return self.query(query, logger: logger)
        }.wait()
    }
}
