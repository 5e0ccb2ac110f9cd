import Foundation

/// Where a `PostgresStore` connects: `postgres://USER@HOST:PORT/DATABASE`, the password kept apart (from a file or
/// the environment, never in the URL, which appears on command lines and in logs).
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    public var user: String
    public var host: String
    public var port: Int
    public var database: String

    /// Why a `store` URL was refused.
    public struct Invalid: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    public init(user: String, host: String, port: Int = 5432, database: String) {
        self.user = user
        self.host = host
        self.port = port
        self.database = database
    }

    /// Parses `postgres://USER@HOST[:PORT]/DATABASE` (or `postgresql://`); refuses a password in it (in its
    /// authority, its query or libpq's `key=value` form). An error shows the text redacted (`redacted(_:)`): it ends
    /// up in the journal.
    public init(parsing text: String) throws {
        let shown = Self.redacted(text)
        guard !Self.holdsPassword(text) else { throw Invalid(description: Self.passwordRefusal) }
        guard let components = URLComponents(string: text),
            let scheme = components.scheme, scheme == "postgres" || scheme == "postgresql"
        else {
            throw Invalid(description: "store \"\(shown)\" is not a postgres://USER@HOST:PORT/DB URL")
        }
        guard let user = components.user, !user.isEmpty else {
            throw Invalid(description: "store \"\(shown)\" names no user: postgres://USER@HOST:PORT/DB")
        }
        guard let host = components.host, !host.isEmpty else {
            throw Invalid(description: "store \"\(shown)\" names no host: postgres://USER@HOST:PORT/DB")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw Invalid(description: "store \"\(shown)\" names no database: postgres://USER@HOST:PORT/DB")
        }
        guard components.query == nil, components.fragment == nil else {
            throw Invalid(description: "store \"\(shown)\" has options the broker does not read")
        }
        self.init(
            user: user.removingPercentEncoding ?? user, host: host, port: components.port ?? 5432,
            database: database.removingPercentEncoding ?? database)
    }

    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}
