#if PostgreSQL
import BrokerCore
import Dispatch
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// One connection to the server, used only from a serial queue of its own (a Dispatch thread, never the cooperative
/// pool): every call blocks that thread on postgres-nio's futures, so the store's synchronous protocol can run on
/// it. The connection is opened on first use and again after it was lost; while the server cannot be reached, calls
/// throw `StoreUnavailable`. Every statement is bounded by `statementTimeout`: past it, the connection is closed and
/// the call throws `StoreUnavailable`, so that a server gone silent (a partition, a frozen host) cannot hold the queue.
final class PostgresSession: Sendable {
    /// The deadline of the statements run now on this thread: the session's, bound while a body runs on its queue.
    @TaskLocal static var statementTimeout: Duration = PostgresStore.defaultStatementTimeout

    private let queue: DispatchQueue
    private let password: String
    private let url: PostgresURL
    private let logger: Logger
    /// SQL run on every new connection (session settings).
    private let setUp: [String]
    /// How long a statement may go unanswered before the connection is closed.
    let statementTimeout: Duration
    /// The queue orders every use of the connection; the lock is what lets the compiler see that no two threads touch
    /// its state at once. Never contended (only the queue takes it), held for no I/O, taken a few times per
    /// transaction and never per statement.
    private let link = Mutex(Link())

    /// The connection and what every new one gets.
    private struct Link {
        var connection: PostgresConnection?
        /// Prepared on every new connection (`prepare(_:)`).
        var hot: [any HotStatement.Type] = []
        /// See `PostgresSession.incarnation`.
        var incarnation: String?
    }

    /// Which run of which server the connection reached: its postmaster's start time, read once per connection (nil
    /// when it could not be read). A promoted standby, or the server restarted after a crash, has another one.
    var incarnation: String? { link.withLock { $0.incarnation } }

    init(
        name: String, url: PostgresURL, password: String, setUp: [String] = [],
        statementTimeout: Duration = PostgresStore.defaultStatementTimeout, logger: Logger
    ) {
        queue = DispatchQueue(label: "hearth.postgres.\(name)")
        self.password = password
        self.url = url
        // The server cancels a statement a little before the client gives up on the connection: a statement that is
        // merely slow (waiting on a lock) fails alone, with its error, and the connection stays.
        self.setUp = ["SET statement_timeout TO \(Self.milliseconds(statementTimeout * 0.8))"] + setUp
        self.statementTimeout = statementTimeout
        self.logger = logger
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    /// Runs `body` on the session's queue, off the caller's thread.
    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try self.onQueue(body) }) }
        }
    }

    /// Runs `body` on the session's queue, blocking the caller until it returns.
    func runBlocking<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try queue.sync { try onQueue(body) }
    }

    /// Closes the connection (it opens again on the next call). Asynchronous: safe from the queue itself.
    func close() {
        queue.async { self.dropConnection() }
    }

    /// From now on, prepares `statements` on every new connection before its first use, and on the open one now (once
    /// the tables they name exist: after the migration). postgres-nio would otherwise prepare each at its first use:
    /// inside a transaction, where a failed statement before it makes the preparation fail for the connection's life,
    /// and out of order with the statements sent after it while it is prepared.
    func prepare(_ statements: [any HotStatement.Type]) throws {
        try queue.sync {
            let open = link.withLock { link in
                link.hot = statements
                return link.connection
            }
            guard let connection = open, !connection.isClosed else { return }
            do {
                try Self.$statementTimeout.withValue(statementTimeout) {
                    try Self.prepare(statements, on: connection, logger: logger)
                }
            } catch {
                dropConnection()
                throw error
            }
        }
    }

    /// Executes each statement once with NULL parameters in a read-only transaction that is rolled back (its
    /// execution may fail: only its preparation counts), then checks with the server that every one is prepared.
    static func prepare(_ statements: [any HotStatement.Type], on connection: PostgresConnection, logger: Logger) throws
    {
        guard !statements.isEmpty else { return }
        for statement in statements {
            _ = try connection.result(of: "BEGIN READ ONLY", logger: logger)
            _ = try? connection.send(statement.withNulls, logger: logger).wait()
            _ = try connection.result(of: "ROLLBACK", logger: logger)
        }
        let prepared = try connection.result(of: "SELECT name FROM pg_prepared_statements", logger: logger).rows
        let names = Set(try prepared.map { try $0.decode(String.self) })
        let missing = statements.map { $0.name }.filter { !names.contains($0) }
        guard missing.isEmpty else {
            throw StoreUnavailable(description: "the server did not prepare \(missing.joined(separator: ", "))")
        }
    }

    /// Forgets the connection after it was lost; only on the queue, from a running body.
    func dropConnection() {
        dispatchPrecondition(condition: .onQueue(queue))
        let dropped = link.withLock { link in
            defer { link.connection = nil }
            return link.connection
        }
        try? dropped?.close().wait()
    }

    private func onQueue<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try Self.$statementTimeout.withValue(statementTimeout) { try bounded(body) }
    }

    private func bounded<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try connected()
        do {
            return try body(connection)
        } catch {
            guard connection.isClosed || Self.isConnectionLoss(error) else { throw error }
            try? connection.close().wait()
            // The body may have reconnected since (settling a commit whose reply was lost opens a new connection):
            // that one is open and stays. Released open, postgres-nio's debug assertion would stop the broker.
            link.withLock { if $0.connection === connection { $0.connection = nil } }
            throw StoreUnavailable(description: "lost the connection to \(url): \(Self.reason(error))")
        }
    }

    /// The open connection, or a new one; only on the queue, from a running body.
    func connected() throws -> PostgresConnection {
        // The lock orders memory; this checks the order the queue gives, which a call from elsewhere would break.
        dispatchPrecondition(condition: .onQueue(queue))
        let (open, hot) = link.withLock { link -> (PostgresConnection?, [any HotStatement.Type]) in
            if let connection = link.connection, !connection.isClosed { return (connection, []) }
            link.connection = nil
            return (nil, link.hot)
        }
        if let open { return open }
        let opened: PostgresConnection
        do {
            opened = try PostgresConnection.open(url: url, password: password, id: 1, logger: logger).wait()
        } catch {
            throw StoreUnavailable(description: "cannot connect to \(url): \(Self.reason(error))")
        }
        do {
            for sql in setUp { _ = try opened.result(of: PostgresQuery(unsafeSQL: sql), logger: logger) }
            try Self.prepare(hot, on: opened, logger: logger)
        } catch {
            try? opened.close().wait()
            throw StoreUnavailable(description: "cannot set up the connection to \(url): \(Self.reason(error))")
        }
        let incarnation =
            try? opened.result(of: "SELECT pg_postmaster_start_time()::text", logger: logger).rows.first?
            .decode(String.self)
        link.withLock { link in
            link.connection = opened
            link.incarnation = incarnation
        }
        return opened
    }

    /// Whether `error` means the connection is gone (rather than that a statement failed on a live one).
    static func isConnectionLoss(_ error: any Error) -> Bool {
        if error is StoreUnavailable { return true }
        guard let error = error as? PSQLError else { return error is ChannelError || error is IOError }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .connectionError: return true
        case .server:
            // Class 08: connection exception; 57P0x: the server is shutting down or restarting.
            let state = error.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("08") || state.hasPrefix("57P")
        default: return false
        }
    }

    /// A short reason for `error`: the server's message when it sent one.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return "\(message) (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
        }
        if let underlying = error.underlying { return "\(underlying)" }
        return "\(error.code)"
    }
}
#endif
