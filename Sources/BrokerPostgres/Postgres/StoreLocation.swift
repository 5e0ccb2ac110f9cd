import BrokerCore
import Foundation
import HearthCore
import HearthService

#if PostgreSQL
// For `connect`'s logger, which only the PostgreSQL build has: an unused import warns in the build without it.
package import Logging
#endif

/// Where the broker keeps its state: the SQLite file in its state directory (the default), or a PostgreSQL database.
public enum StoreLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite
    /// `password` came from `storePasswordFile` or `HEARTH_STORE_PASSWORD`, never from the URL.
    case postgres(PostgresURL, password: String)

    /// The environment variable the PostgreSQL password may come from.
    public static let passwordVariable = "HEARTH_STORE_PASSWORD"

    /// Whether this build holds the PostgreSQL store: the package's `PostgreSQL` trait, on by default.
    public static var postgreSQLBuilt: Bool {
        #if PostgreSQL
        true
        #else
        false
        #endif
    }

    public var description: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres(let url, _): url.description
        }
    }

    /// Parses the `store` setting: `sqlite`, or `postgres://USER@HOST:PORT/DB` with the password from
    /// `passwordFile` (owner-only) or else `HEARTH_STORE_PASSWORD`. Errors never show the password nor the query.
    /// A valid PostgreSQL URL throws `PostgreSQLNotBuilt` when `postgreSQL` (this build's trait) is false.
    package static func parse(
        _ text: String, passwordFile: String?, postgreSQL: Bool = postgreSQLBuilt
    ) throws -> StoreLocation {
        if text == "sqlite" { return .sqlite }
        let url: PostgresURL
        do {
            url = try PostgresURL(parsing: text)
        } catch let invalid as PostgresURL.Invalid {
            throw SettingProblem(invalid.description + " (or sqlite)")
        }
        // Before the password: a build that cannot use the database has no reason to ask for it.
        guard postgreSQL else { throw PostgreSQLNotBuilt(url: url) }
        if let passwordFile {
            try checkPasswordFile(passwordFile)
            guard let contents = try? String(contentsOfFile: passwordFile, encoding: .utf8) else {
                throw SettingProblem("cannot read storePasswordFile '\(passwordFile)'")
            }
            return .postgres(url, password: contents.trimmingCharacters(in: .newlines))
        }
        guard let password = ProcessInfo.processInfo.environment[passwordVariable] else {
            throw SettingProblem("\(url) needs a password: set storePasswordFile or \(passwordVariable)")
        }
        return .postgres(url, password: password)
    }

    /// Refuses a password file that other users may read, as ssh does a private key and libpq a `.pgpass`: the file
    /// is named with the command that fixes it.
    static func checkPasswordFile(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw SettingProblem("cannot read storePasswordFile '\(path)': \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & 0o077 == 0 else {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw SettingProblem(
                "storePasswordFile '\(path)' may be read by other users (mode \(mode)): run `chmod 600 \(path)`")
        }
    }
}

#if PostgreSQL
extension PostgresStore {
    /// Connects as the broker starts: tries for `retryFor` (zero: once) before giving up with a
    /// `ConfigurationError` naming the URL and why, which makes the broker exit 78.
    package static func connect(
        _ url: PostgresURL, password: String, retryFor: Duration, leaseDuration: Duration? = nil,
        statementTimeout: Duration = PostgresStore.defaultStatementTimeout, logger: Logger
    ) async throws -> PostgresStore {
        let deadline = ContinuousClock.now + retryFor
        while true {
            do {
                // Opening blocks on the server (connect, migrate): on a Dispatch thread, not the cooperative pool.
                return try await withCheckedThrowingContinuation { continuation in
                    DispatchQueue.global().async {
                        continuation.resume(
                            with: Result {
                                try PostgresStore(
                                    url: url, password: password, leaseDuration: leaseDuration,
                                    statementTimeout: statementTimeout, logger: logger)
                            })
                    }
                }
            } catch let unavailable as StoreUnavailable {
                guard ContinuousClock.now < deadline else {
                    throw ConfigurationError(source: "store", key: url.description, reason: unavailable.description)
                }
                logger.warning("store not reachable; retrying", metadata: ["error": "\(unavailable)"])
                try await Task.sleep(for: .seconds(1))
            } catch let tooNew as SchemaTooNew {
                throw ConfigurationError(source: "store", key: url.description, reason: tooNew.description)
            }
        }
    }
}
#endif
