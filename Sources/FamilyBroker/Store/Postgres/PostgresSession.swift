import Dispatch
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// One connection to the server, used only from a serial queue of its own (a Dispatch thread, never the cooperative
/// pool): every call blocks that thread on postgres-nio's futures, so the store's synchronous protocol can run on
/// it. The connection is opened on first use and again after it was lost; while the server cannot be reached, calls
/// throw `StoreUnavailable`.
final class PostgresSession: @unchecked Sendable {
    private let queue: DispatchQueue
    private let configuration: PostgresConnection.Configuration
    private let url: PostgresURL
    private let logger: Logger
    /// SQL run on every new connection (session settings).
    private let setUp: [String]
    /// Only touched on `queue`.
    private var connection: PostgresConnection?

    init(name: String, url: PostgresURL, password: String, setUp: [String] = [], logger: Logger) {
        queue = DispatchQueue(label: "hearth.postgres.\(name)")
        var configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: password, database: url.database,
            tls: .disable)
        configuration.options.connectTimeout = .seconds(5)
        self.configuration = configuration
        self.url = url
        self.setUp = setUp
        self.logger = logger
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
        queue.async {
            try? self.connection?.close().wait()
            self.connection = nil
        }
    }

    /// Forgets the connection after it was lost; only on the queue, from a running body.
    func dropConnection() {
        try? connection?.close().wait()
        connection = nil
    }

    private func onQueue<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try connected()
        do {
            return try body(connection)
        } catch {
            guard connection.isClosed || Self.isConnectionLoss(error) else { throw error }
            try? connection.close().wait()
            self.connection = nil
            throw StoreUnavailable(description: "lost the connection to \(url): \(Self.reason(error))")
        }
    }

    /// The open connection, or a new one; only on the queue, from a running body.
    func connected() throws -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        connection = nil
        let opened: PostgresConnection
        do {
            opened = try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger
            ).wait()
        } catch {
            throw StoreUnavailable(description: "cannot connect to \(url): \(Self.reason(error))")
        }
        do {
            for sql in setUp { _ = try opened.result(of: PostgresQuery(unsafeSQL: sql), logger: logger) }
        } catch {
            try? opened.close().wait()
            throw StoreUnavailable(description: "cannot set up the connection to \(url): \(Self.reason(error))")
        }
        connection = opened
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
