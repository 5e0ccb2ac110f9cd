extension CommunicationHandle {
    /// The kinds a handle's text may name, in each spelling: `phone` or `phoneNumber`, `email` or `emailAddress`, and
    /// `custom`, so that what a tool prints (`phoneNumber:+15551234567`) is accepted back.
    public static let textKinds: [String: Kind] = [
        "phone": .phoneNumber, "phoneNumber": .phoneNumber, "email": .emailAddress, "emailAddress": .emailAddress,
        "custom": .custom,
    ]

    /// The spellings of `textKinds`, as an error message names them.
    public static let textSpellings = "phone: (or phoneNumber:), email: (or emailAddress:) or custom:"

    /// A handle as a person types it, `KIND:VALUE`. A phone number must be in E.164 form and an email address must
    /// look like one: a typo is refused here rather than stored as a contact nobody has. With `bareIsCustom`, text
    /// without a known kind is a custom handle (an app's username).
    public init(parsing text: String, bareIsCustom: Bool = false) throws(HandleTextError) {
        let colon = text.firstIndex(of: ":")
        guard let colon, let kind = Self.textKinds[String(text[..<colon])] else {
            if bareIsCustom, !text.isEmpty {
                self.init(value: text, kind: .custom)
                return
            }
            guard let colon else { throw .notKindAndValue(text) }
            throw .unknownKind(String(text[..<colon]), in: text)
        }
        let value = String(text[text.index(after: colon)...])
        guard !value.isEmpty else { throw .emptyValue(text) }
        switch kind {
        case .phoneNumber: guard Self.isPhoneNumber(value) else { throw .notPhoneNumber(value) }
        case .emailAddress: guard Self.isEmailAddress(value) else { throw .notEmailAddress(value) }
        case .custom: break
        }
        self.init(value: value, kind: kind)
    }

    /// E.164: a plus sign and 8 to 15 digits, the first not 0 (no country code starts with 0).
    public static func isPhoneNumber(_ value: String) -> Bool {
        guard value.first == "+" else { return false }
        let digits = value.dropFirst()
        return (8...15).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
            && digits.first != "0"
    }

    /// One @ with a name before it and, after it, a domain with a dot inside it; no whitespace anywhere.
    public static func isEmailAddress(_ value: String) -> Bool {
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !value.contains(where: \.isWhitespace) else { return false }
        let domain = parts[1]
        return domain.contains(".") && domain.first != "." && domain.last != "." && !domain.contains("..")
    }
}
