/// The rules for the short free texts people exchange: an app's note on a question and a parent's message with an
/// answer. Capped in bytes and in characters, and plain text: no control characters but the newline.
public enum ShortText {
    /// Most UTF-8 bytes of a note or message.
    public static let maxBytes = 1024
    /// Most characters (grapheme clusters) of a note or message.
    public static let maxCharacters = 280

    /// A field's name and the rule its text breaks.
    public struct Violation: Error, Sendable, Hashable, CustomStringConvertible {
        /// The field's decode name, e.g. `question.note` or `answer.message`.
        public var field: String
        /// The rule broken, e.g. `is 300 characters, at most 280 allowed`.
        public var reason: String

        public init(field: String, reason: String) {
            self.field = field
            self.reason = reason
        }

        /// `FIELD: REASON`, the wire's text for a broken rule (docs/PROTOCOL.md §7).
        public var description: String { "\(field): \(reason)" }

        /// The violation in `text` of the form `FIELD: REASON`; nil for text of another form.
        public init?(parsing text: String) {
            guard let colon = text.range(of: ": ") else { return nil }
            let field = String(text[..<colon.lowerBound])
            guard !field.isEmpty, !field.contains(" ") else { return nil }
            self.init(field: field, reason: String(text[colon.upperBound...]))
        }
    }

    /// The first rule `text` breaks, named after `field`; nil when it follows them all.
    public static func violation(in text: String, field: String) -> Violation? {
        if text.isEmpty { return Violation(field: field, reason: "must not be empty (leave it out instead)") }
        let bytes = text.utf8.count
        if bytes > maxBytes {
            return Violation(field: field, reason: "is \(bytes) bytes of UTF-8, at most \(maxBytes) allowed")
        }
        let characters = text.count
        if characters > maxCharacters {
            return Violation(field: field, reason: "is \(characters) characters, at most \(maxCharacters) allowed")
        }
        if let bad = text.unicodeScalars.first(where: isForbidden) {
            let code = String(bad.value, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
            return Violation(
                field: field, reason: "must not contain control character U+\(padded) (only newline is allowed)")
        }
        return nil
    }

    /// The general category Cc (C0, DEL, C1) but the newline: tabs, carriage returns and escapes would let a text
    /// rewrite a terminal line or a notification.
    private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\n" && scalar.properties.generalCategory == .control
    }
}
