#if PostgreSQL
import BrokerCore
import Logging
import NIOCore
import PostgresNIO

extension PostgresConnection {
    /// Runs `query` and blocks until its result; throws `ChannelError.ioOnClosedChannel` at once when the connection
    /// is already closed, and `StoreUnavailable` after closing the connection when the server has not answered within
    /// `PostgresSession.statementTimeout` (the deadline of the session whose queue runs it).
    ///
    /// Every statement of the store goes through here, never through `query(_:logger:).wait()`: postgres-nio (1.33)
    /// drops a query written to a connection whose channel has closed without completing its future, so that wait never
    /// ended. A writer that sent its next statement, or its ROLLBACK, after the server or the network dropped the
    /// connection blocked its queue for good: the broker kept its leases and answered nothing. Checked
    /// and written on the connection's event loop, where the channel cannot close in between; a connection that closes
    /// later fails the query itself. A server that vanished without closing the connection (a partition dropping
    /// packets, a frozen host) never answers nor closes it: the deadline does, so the statement fails and the
    /// session's next call reconnects.
    func result(of query: PostgresQuery, logger: Logger) throws -> PostgresQueryResult {
        try send(query, logger: logger).wait()
    }

    /// Sends `query` without waiting for it, as `result(of:logger:)` does, under the same deadline: postgres-nio runs
    /// a connection's queries one after the other, so a caller may send several and wait only for the last.
    func send(_ query: PostgresQuery, logger: Logger) -> StatementAnswer<PostgresQueryResult> {
        let answer = StatementAnswer<PostgresQueryResult>()
        eventLoop.execute {
            guard !self.isClosed else { return answer.complete(.failure(ChannelError.ioOnClosedChannel)) }
            let deliver = self.armDeadline(for: answer, statement: "\(query.sql.prefix(80))", logger: logger)
            self.query(query, logger: logger).whenComplete(deliver)
        }
        return answer
    }

    /// On the event loop: bounds `answer` by the session's statement deadline. Whichever comes first completes it:
    /// the returned function with the statement's result, or the deadline, which closes the connection (a server
    /// that vanished without closing it never answers) and fails `answer` with `StoreUnavailable`.
    func armDeadline<T: Sendable>(
        for answer: StatementAnswer<T>, statement: String, logger: Logger
    ) -> @Sendable (Result<T, any Error>) -> Void {
        let timeout = PostgresSession.statementTimeout
        let settled = NIOLoopBoundBox(false, eventLoop: eventLoop)
        let deadline = eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            guard !settled.value else { return }
            settled.value = true
            logger.error(
                "PostgreSQL did not answer a statement in time: closing the connection",
                metadata: ["timeout": "\(timeout)", "statement": "\(statement)"])
            self.close().whenComplete { _ in }
            answer.complete(.failure(StoreUnavailable(description: "no answer to a statement within \(timeout)")))
        }
        return { result in
            guard !settled.value else { return }
            settled.value = true
            deadline.cancel()
            answer.complete(result)
        }
    }
}
#endif
