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

    public var description: String {
        kind.name + ":" + value
    }
}

extension CommunicationHandle.Kind {
    /// The case's name, as `"\(kind)"` would print it without reflecting on the enum (which cost the broker ~2 µs per
    /// answer, in the history entry's summary).
    public var name: String {
        switch self {
        case .phoneNumber: "phoneNumber"
        case .emailAddress: "emailAddress"
        case .custom: "custom"
        }
    }
}
