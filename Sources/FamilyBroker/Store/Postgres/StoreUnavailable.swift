/// The store cannot be reached (its server is down or the connection was lost): nothing of the transaction was
/// stored, and the same command may be sent again. Devices get `notAvailable` and keep the command in their outbox.
public struct StoreUnavailable: Error, CustomStringConvertible, Sendable {
    public var description: String
}
