#if PostgreSQL
import Logging
import NIOCore
import PostgresNIO

/// A statement of the writer's hot path (`HotStatements`), run as a named prepared statement: the server parses and
/// plans it once per connection, then only binds and executes it. Every parameter is cast in the SQL (`$1::uuid`),
/// so that the server's types are the ones the bindings are encoded as.
protocol HotStatement: PostgresPreparedStatement where Row == PostgresRow {
    /// The values of `$1`, `$2`, … in order.
    var bindings: PostgresBindings { get }
    init(bindings: PostgresBindings)
}

extension HotStatement {
    static var name: String { "hearth_\(Self.self)" }

    func makeBindings() -> PostgresBindings { bindings }

    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }

    /// The statement with `values` as its parameters, written as an interpolation (`"\(id) \(child)"`): postgres-nio
    /// encodes each as it does for a query, optionals as NULL.
    init(_ values: PostgresQuery) { self.init(bindings: values.binds) }

    /// How many parameters the SQL takes (its highest `$n`).
    static var parameterCount: Int {
        var highest = 0
        var rest = Substring(sql)
        while let dollar = rest.firstIndex(of: "$") {
            rest = rest[rest.index(after: dollar)...]
            let digits = rest.prefix(while: \.isNumber)
            highest = max(highest, Int(digits) ?? 0)
            rest = rest.dropFirst(digits.count)
        }
        return highest
    }

    /// The statement with every parameter NULL: what a new connection executes once to prepare it.
    static var withNulls: Self {
        var bindings = PostgresBindings(capacity: parameterCount)
        for _ in 0..<parameterCount { bindings.appendNull() }
        return Self(bindings: bindings)
    }
}

extension PostgresConnection {
    /// Runs a hot statement as `send(_:logger:)` runs a query: in order with the statements sent before it, failed at
    /// once on a closed connection, and bounded by the session's statement deadline.
    func send<Statement: HotStatement>(_ statement: Statement, logger: Logger) -> StatementAnswer<[PostgresRow]> {
        let answer = StatementAnswer<[PostgresRow]>()
        // Created here, not on the loop: its first job is queued now, behind the statements sent before it.
        Task(executorPreference: EventLoopTaskExecutor.on(eventLoop)) {
            guard !self.isClosed else { return answer.complete(.failure(ChannelError.ioOnClosedChannel)) }
            let deliver = self.armDeadline(for: answer, statement: "\(Statement.name)", logger: logger)
            do {
                // Up to its first suspension, `execute` runs in this job: the statement is written in this turn.
                var rows: [PostgresRow] = []
                for try await row in try await self.execute(statement, logger: logger) { rows.append(row) }
                deliver(.success(rows))
            } catch {
                deliver(.failure(error))
            }
        }
        return answer
    }
}
#endif
