import Foundation
import HearthFleet
import Testing

/// The tiers of the tests (the README's test table): `swift test --skip tag:fleet` leaves out the suites that start
/// daemons, `--skip tag:postgres` those that need a PostgreSQL server, `--skip tag:slow` the long ones.
extension Tag {
    /// The suite needs a PostgreSQL server (Debian's `postgresql`, which `deploy/setup --tests` installs).
    @Tag static var postgres: Self
    /// The suite starts daemons as processes (a fleet, one daemon, or a tool that does).
    @Tag static var fleet: Self
    /// The suite takes long: tens of seconds of load, faults or waiting on clocks.
    @Tag static var slow: Self
}

/// Whether this run has a PostgreSQL server for the suites tagged `postgres` (`.enabled(if: PostgresTier.runs, …)`):
/// one must be installed, and `HEARTH_TEST_POSTGRES=0` leaves them out. On CI (`CI` set) they always run, and fail
/// naming what to install if it is missing.
enum PostgresTier {
    static let runs: Bool = {
        let environment = ProcessInfo.processInfo.environment
        if environment["HEARTH_TEST_POSTGRES"] == "0" { return false }
        return (try? PostgresServer.binaries()) != nil || environment["CI"] != nil
    }()

    static let skipped: Comment =
        "needs a PostgreSQL server: none installed (deploy/setup --tests installs it), or HEARTH_TEST_POSTGRES=0"
}
