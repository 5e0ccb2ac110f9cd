#if PostgreSQL
import BrokerCore
import Foundation
import HearthCore
public import Logging
import PostgresNIO

/// The broker's durable state in a PostgreSQL database: the same tables and guarantees as `BrokerStore` (SQLite),
/// for operators who keep their state on a database server they replicate and back up.
///
/// Two connections, each on a serial queue of its own: the writer runs transactions one at a time in the order they
/// were started, with `synchronous_commit = on` so that a commit is durable once acknowledged; the reader runs each
/// `reading` in a read-only REPEATABLE READ transaction (one committed snapshot, never waiting for the writer).
/// Either reconnects by itself after the server was lost; meanwhile calls throw `StoreUnavailable`.
public final class PostgresStore: Sendable {
    /// How long a statement may go unanswered by default (the broker's `storeStatementTimeout`).
    public static let defaultStatementTimeout = Duration.seconds(15)

    public let url: PostgresURL
    let writer: PostgresSession
    let reader: PostgresSession
    let logger: Logger
    /// For the cluster's own connections (`leaseSession`, the directory's listener).
    let password: String
    /// How long any statement may go unanswered (the broker's `storeStatementTimeout`).
    let statementTimeout: Duration
    /// A commit whose reply was lost with the connection, settled before the writer's next transaction.
    let unsettled = UnsettledCommit()
    /// A partition owner's rows in memory, once this broker adopted partitions (`OwnerCache`).
    let ownerCache = OwnerCache()

    /// Connects to `url` and brings its schema up to date; throws `StoreUnavailable` when the server cannot be
    /// reached, `PostgresStore.SchemaTooNew` when the database was migrated by a newer broker. With a
    /// `leaseDuration` (a broker of a cluster), the server ends a write transaction left idle that long (a broker
    /// paused mid-transaction), so that its locks on partition leases never hold up a takeover for longer. A statement
    /// unanswered for `statementTimeout` closes its connection and fails with `StoreUnavailable`.
    public init(
        url: PostgresURL, password: String, leaseDuration: Duration? = nil,
        statementTimeout: Duration = PostgresStore.defaultStatementTimeout,
        logger: Logger = Logger(label: "family-broker.postgres")
    ) throws {
        self.url = url
        self.statementTimeout = statementTimeout
        self.logger = logger
        self.password = password
        // `on` whatever the server's default: an acknowledged command must survive the server's crash.
        var setUp = ["SET synchronous_commit TO on"]
        if let leaseDuration {
            setUp.append("SET idle_in_transaction_session_timeout TO \(PostgresSession.milliseconds(leaseDuration))")
        }
        writer = PostgresSession(
            name: "writer", url: url, password: password, setUp: setUp, statementTimeout: statementTimeout,
            logger: logger)
        reader = PostgresSession(
            name: "reader", url: url, password: password, statementTimeout: statementTimeout, logger: logger)
        try writer.runBlocking { connection in try Self.migrate(connection, url: url, logger: logger) }
        try writer.prepare(HotStatements.all)
        try reader.prepare(HotStatements.all)
    }

    deinit {
        writer.close()
        reader.close()
    }

    /// Why the server does not answer now, or nil when it does (for readiness): a trivial query on the reader.
    public func unreachableReason() async -> String? {
        // Not `self` in the closure: the store's last reference must never be dropped on its own queue.
        let logger = self.logger
        do {
            try await reader.run { connection in _ = try connection.result(of: "SELECT 1", logger: logger) }
            return nil
        } catch {
            return "\(error)"
        }
    }
}

extension PostgresStore: BrokerStorage {
    /// Each statement is a round trip (~1–2 ms under load): a batch of 512 commands in one transaction held its
    /// partitions' lease rows (`FOR SHARE`) for seconds, and the broker's own lease renewal waited on them until the
    /// lease lapsed (docs/decisions/0011-fenced-leases.md). 64 commands keep a transaction well under a second.
    var maxCommandsPerTransaction: Int? { 64 }

    func heads() throws -> [MemberID: UInt64] {
        try reader.runBlocking { connection in
            let rows = try connection.result(
                of: "SELECT member_id, MAX(seq) FROM event GROUP BY member_id", logger: logger
            ).rows
            var heads: [MemberID: UInt64] = [:]
            for row in rows {
                let (member, head) = try row.decode((String, Int64).self)
                heads[member] = UInt64(head)
            }
            return heads
        }
    }

    func reading<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T {
        let logger = self.logger
        return try await reader.run { connection in
            let tx = PostgresTransaction(connection: connection, logger: logger)
            try tx.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do {
                let result = try body(tx)
                try tx.execute("COMMIT")
                return result
            } catch {
                _ = try? tx.execute("ROLLBACK")
                throw error
            }
        }
    }

    func transaction<T: Sendable>(
        _ work: @escaping @Sendable (any StorageWriter) throws -> T, committed: @escaping @Sendable (T) -> Void
    ) async throws -> T {
        let logger = self.logger
        let session = writer
        let unsettled = self.unsettled
        let cache = ownerCache
        // On the writer's serial queue: `committed` runs there too, before the next transaction starts.
        return try await writer.run { _ in
            _ = try unsettled.settle(session: session, logger: logger)
            let tx = PostgresTransaction(connection: try session.connected(), logger: logger, cache: cache)
            cache.check(incarnation: session.incarnation)
            tx.held.cacheGeneration = cache.generation
            let xid: Int64
            let result: T
            do {
                let transactionID = tx.begin()
                result = try work(tx)
                // Answered long before in a transaction that read anything, or while it worked; needed only if the
                // commit's reply is lost.
                xid = try tx.answered(transactionID).first?.decode(Int64.self) ?? 0
            } catch {
                let refused = tx.fenceRefused
                _ = try? tx.execute("ROLLBACK")
                throw refused ? FenceRefused() : error
            }
            do {
                // What the commands sent and did not wait for is checked by the commit's one wait.
                try tx.commit()
            } catch let error where PostgresSession.isConnectionLoss(error) || tx.connection.isClosed {
                // What the cache was to learn may or may not be stored: it starts again from the server.
                cache.forget()
                // Committed or not: only the server knows. Ask it again on a new connection (now, or before the
                // next transaction), and run `committed` then if it did commit.
                unsettled.hold(
                    UnsettledCommit.Pending(xid: xid, incarnation: session.incarnation) { committed(result) })
                session.dropConnection()
                if (try? unsettled.settle(session: session, logger: logger)) == true { return result }
                let reason = PostgresSession.reason(error)
                throw StoreUnavailable(description: "the connection was lost at commit: \(reason)")
            } catch {
                let refused = tx.fenceRefused
                _ = try? tx.execute("ROLLBACK")
                throw refused ? FenceRefused() : error
            }
            cache.apply(tx.held.cacheChanges, since: tx.held.cacheGeneration)
            committed(result)
            return result
        }
    }
}

extension PostgresStore: OwnerCaching {
    func forgetOwnerCache() { ownerCache.forget() }
}
#endif
