import ArgumentParser
import HearthCore

/// A handle as a person types it, `KIND:VALUE`: kind `phone` or `phoneNumber`, `email` or `emailAddress`, or
/// `custom`, so that what hearthctl prints (`phoneNumber:+15551234567`) is accepted back. A phone number must be in
/// E.164 form and an email address must look like one: a typo is refused here, not stored as a contact nobody has.
enum HandleText {
    static let kinds: [String: CommunicationHandle.Kind] = [
        "phone": .phoneNumber, "phoneNumber": .phoneNumber, "email": .emailAddress, "emailAddress": .emailAddress,
        "custom": .custom,
    ]
    static let spellings = "phone: (or phoneNumber:), email: (or emailAddress:) or custom:"

    /// Parses `text`; with `bareIsCustom`, text without a known kind is a custom handle (an app's username).
    static func parse(_ text: String, bareIsCustom: Bool = false) throws -> CommunicationHandle {
        let colon = text.firstIndex(of: ":")
        guard let colon, let kind = kinds[String(text[..<colon])] else {
            if bareIsCustom, !text.isEmpty { return CommunicationHandle(value: text, kind: .custom) }
            guard let colon else { throw ValidationError("'\(text)' is not KIND:VALUE (\(spellings))") }
            throw ValidationError("'\(text[..<colon])' in '\(text)' is not a kind: use \(spellings)")
        }
        let value = String(text[text.index(after: colon)...])
        guard !value.isEmpty else { throw ValidationError("'\(text)' has an empty value") }
        switch kind {
        case .phoneNumber:
            guard isPhoneNumber(value) else {
                throw ValidationError(
                    "'\(value)' is not a phone number in E.164 form: + then 8 to 15 digits, no spaces or dashes, "
                        + "e.g. phone:+15551234567")
            }
        case .emailAddress:
            guard isEmailAddress(value) else {
                throw ValidationError(
                    "'\(value)' is not an email address: one @, a name before it, a domain with a dot after it, "
                        + "no spaces, e.g. email:sam@example.com")
            }
        case .custom: break
        }
        return CommunicationHandle(value: value, kind: kind)
    }

    /// E.164: a plus sign and 8 to 15 digits, the first not 0 (no country code starts with 0).
    static func isPhoneNumber(_ value: String) -> Bool {
        guard value.first == "+" else { return false }
        let digits = value.dropFirst()
        return (8...15).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
            && digits.first != "0"
    }

    /// One @ with a name before it and, after it, a domain with a dot inside it; no whitespace anywhere.
    static func isEmailAddress(_ value: String) -> Bool {
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !value.contains(where: \.isWhitespace) else { return false }
        let domain = parts[1]
        return domain.contains(".") && domain.first != "." && domain.last != "." && !domain.contains("..")
    }
}
