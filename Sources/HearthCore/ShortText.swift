import Foundation

/// The text rule for everything an app or a child controls and a parent reads: a question's note, handle values,
/// name components, choice ids and titles, an app update's description, and a parent's message with an answer.
/// Each field has a `Rule`: a cap in bytes and in characters, and plain text: Unicode NFC (required, not fixed up:
/// what a parent reads is byte for byte what was stored), no control character (C0, DEL, C1) but a newline where the
/// rule allows one, no bidirectional control (which reorders what a person reads) and no line or paragraph separator.
public enum ShortText {
    /// Most UTF-8 bytes of a note or message.
    public static let maxBytes = Rule.words.maxBytes
    /// Most characters (grapheme clusters) of a note or message.
    public static let maxCharacters = Rule.words.maxCharacters

    /// The caps of one kind of field, and whether it may span lines.
    public struct Rule: Sendable, Hashable {
        /// Most characters (grapheme clusters).
        public var maxCharacters: Int
        /// Most UTF-8 bytes.
        public var maxBytes: Int
        /// Whether a newline (U+000A) is allowed: words for people may have several lines, names never.
        public var allowsNewline: Bool

        public init(maxCharacters: Int, maxBytes: Int, allowsNewline: Bool) {
            self.maxCharacters = maxCharacters
            self.maxBytes = maxBytes
            self.allowsNewline = allowsNewline
        }

        /// An app's note on a question, a parent's message with an answer.
        public static let words = Rule(maxCharacters: 280, maxBytes: 1024, allowsNewline: true)
        /// A significant app update's description.
        public static let description = Rule(maxCharacters: 500, maxBytes: 1024, allowsNewline: true)
        /// A handle's value: an email address is at most 254 characters.
        public static let handle = Rule(maxCharacters: 256, maxBytes: 512, allowsNewline: false)
        /// One part of a person's name (given, middle, family name, nickname).
        public static let name = Rule(maxCharacters: 100, maxBytes: 400, allowsNewline: false)
        /// A choice's title: a button's label.
        public static let choiceTitle = Rule(maxCharacters: 64, maxBytes: 256, allowsNewline: false)
        /// A choice's id (and a question's default choice id).
        public static let choiceID = Rule(maxCharacters: 64, maxBytes: 64, allowsNewline: false)
    }

    /// A field's name and the rule its text breaks.
    public struct Violation: Error, Sendable, Hashable, CustomStringConvertible {
        /// The field's decode name, e.g. `question.note` or `topic.personInformation[0].handle.value`.
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
    public static func violation(in text: String, field: String, rule: Rule = .words) -> Violation? {
        if text.isEmpty { return Violation(field: field, reason: "must not be empty (leave it out instead)") }
        let bytes = text.utf8.count
        if bytes > rule.maxBytes {
            return Violation(field: field, reason: "is \(bytes) bytes of UTF-8, at most \(rule.maxBytes) allowed")
        }
        let characters = text.count
        if characters > rule.maxCharacters {
            return Violation(
                field: field, reason: "is \(characters) characters, at most \(rule.maxCharacters) allowed")
        }
        if let bad = text.unicodeScalars.first(where: { isForbidden($0, newline: rule.allowsNewline) }) {
            let what = bad.properties.generalCategory == .control ? "control character" : "formatting character"
            let allowed = rule.allowsNewline ? " (only newline is allowed)" : ""
            return Violation(field: field, reason: "must not contain \(what) \(codePoint(bad))\(allowed)")
        }
        // `==` on strings compares canonical equivalence: the bytes tell whether the text is composed.
        if !text.utf8.elementsEqual(text.precomposedStringWithCanonicalMapping.utf8) {
            return Violation(field: field, reason: "is not in Unicode normalization form C (NFC): normalize it first")
        }
        return nil
    }

    /// `U+001B`: a scalar as Unicode writes it, at least four hex digits.
    public static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let code = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - code.count)) + code
    }

    /// Whether `scalar` may not appear in a field: a control character (general category Cc: C0, DEL, C1; tabs,
    /// carriage returns and escapes rewrite a terminal line or a notification) but the newline where allowed; a
    /// bidirectional control (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: `moc.elpmaxe` reads as
    /// `example.com`); a line or paragraph separator (U+2028, U+2029: a line break by another name).
    public static func isForbidden(_ scalar: Unicode.Scalar, newline: Bool) -> Bool {
        if scalar == "\n" { return !newline }
        if scalar.properties.generalCategory == .control || scalar.properties.isBidiControl { return true }
        return scalar.value == 0x2028 || scalar.value == 0x2029
    }
}
