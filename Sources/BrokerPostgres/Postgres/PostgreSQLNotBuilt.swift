/// The `store` setting names a PostgreSQL database, but this broker was built without the package's `PostgreSQL`
/// trait (`swift build --disable-default-traits`, or a package depending on this one with `traits: []`): it has only
/// the SQLite store. The broker exits 78 (EX_CONFIG) with this text.
public struct PostgreSQLNotBuilt: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database the setting named (never with a password: `PostgresURL` refuses one).
    public var url: PostgresURL

    public init(url: PostgresURL) { self.url = url }

    public var description: String {
        "\(url) is a PostgreSQL database, but this family-broker was built without the PostgreSQL trait: "
            + "build it with the package's default traits (no --disable-default-traits), or set store to sqlite"
    }
}
