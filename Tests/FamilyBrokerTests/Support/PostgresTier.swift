import Foundation
import HearthLab
import Testing

/// Whether this run tests on PostgreSQL: a server must be installed (`PostgresServer.binaries`), and
/// `HEARTH_TEST_POSTGRES=0` leaves it out for a fast loop. On CI (`CI` set) a missing server is not skipped: the test
/// fails naming what to install, since CI installs it and runs everything.
enum PostgresTier {
    static let environment = ProcessInfo.processInfo.environment

    /// Why PostgreSQL's tests are left out of this run, or nil when they run.
    static let skipped: String? = {
        if environment["HEARTH_TEST_POSTGRES"] == "0" { return "HEARTH_TEST_POSTGRES=0 leaves PostgreSQL out" }
        if (try? PostgresServer.binaries()) != nil || environment["CI"] != nil { return nil }
        return "no PostgreSQL server installed (deploy/setup --tests installs it; CI runs these)"
    }()

    /// Ends the calling test (or test case, in a parameterized test) as skipped when PostgreSQL is left out.
    static func require() throws {
        if let skipped { try Test.cancel(Comment(rawValue: skipped)) }
    }
}
