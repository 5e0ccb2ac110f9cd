/// An identifier of a person in an app: a phone number, an email address or an app-specific username.
public struct CommunicationHandle: Hashable, Sendable, Codable, CustomStringConvertible {
    /// What kind of identifier `value` is.
    public enum Kind: UInt8, Hashable, Sendable, Codable, CaseIterable {
        case phoneNumber = 1
        case emailAddress = 2
        case custom = 3
    }

    /// The identifier itself, e.g. `"dragonslayer42"`.
    public var value: String
    /// What kind of identifier `value` is.
    public var kind: Kind

    /// A handle of the given kind.
    public init(value: String, kind: Kind) {
        self.value = value
        self.kind = kind
    }

    public var description: String { "\(kind):\(value)" }
}
