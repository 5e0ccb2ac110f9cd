import Testing

/// The tiers of the tests (the README's test table): `swift test --skip tag:postgres` runs without a PostgreSQL
/// server's suites.
extension Tag {
    /// The suite needs a PostgreSQL server (Debian's `postgresql`, which `deploy/setup --tests` installs).
    @Tag static var postgres: Self
    /// The suite takes long: seconds of waiting on a server, a deadline or a clock.
    @Tag static var slow: Self
}
