/// The store cannot take the transaction now: a PostgreSQL server that is down or a lost connection, or a SQLite
/// commit the disk refused (no space left, an I/O error). Nothing of the transaction was stored, and the same
/// commands may be sent again: devices get `brokerUnavailable` (14) and child-device keeps an ask in its outbox.
public struct StoreUnavailable: Error, CustomStringConvertible, Sendable {
    public var description: String

    package init(description: String) {
        self.description = description
    }
}
