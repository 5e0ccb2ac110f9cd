/// Why a handle's text (`KIND:VALUE`) is not a handle; its description says what to write instead.
public enum HandleTextError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No colon, so no kind: the text.
    case notKindAndValue(String)
    /// The part before the colon is not a kind: that part, and the text.
    case unknownKind(String, in: String)
    /// Nothing after the colon: the text.
    case emptyValue(String)
    /// A phone number not in E.164 form: the value.
    case notPhoneNumber(String)
    /// An email address that does not look like one: the value.
    case notEmailAddress(String)

    public var description: String {
        let spellings = CommunicationHandle.textSpellings
        switch self {
        case .notKindAndValue(let text): return "'\(text)' is not KIND:VALUE (\(spellings))"
        case .unknownKind(let kind, let text): return "'\(kind)' in '\(text)' is not a kind: use \(spellings)"
        case .emptyValue(let text): return "'\(text)' has an empty value"
        case .notPhoneNumber(let value):
            return "'\(value)' is not a phone number in E.164 form: + then 8 to 15 digits, no spaces or dashes, "
                + "e.g. phone:+15551234567"
        case .notEmailAddress(let value):
            return "'\(value)' is not an email address: one @, a name before it, a domain with a dot after it, "
                + "no spaces, e.g. email:sam@example.com"
        }
    }
}
