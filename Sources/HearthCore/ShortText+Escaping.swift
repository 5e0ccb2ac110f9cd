extension ShortText {
    /// `text` safe to print on a terminal or in a notification: every character the text rule forbids (controls,
    /// bidirectional controls, line separators) written as a Swift escape, e.g. `\u{1B}`. What reached a store
    /// without the rule (an old row, a file edited by hand, a peer of an older version) then cannot rewrite a line
    /// or reorder what a parent reads. `keepingNewlines`: whether newlines stay (words on several lines).
    public static func escaped(_ text: String, keepingNewlines newline: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isForbidden($0, newline: newline) }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isForbidden(scalar, newline: newline) {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// `json` (a JSON text) with every forbidden character of its strings written as a JSON escape (`\u202E`): the
    /// same value for a program, nothing a terminal acts on. Forbidden characters are all in the BMP.
    public static func escapedJSON(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { isForbidden($0, newline: false) }) else { return json }
        var result = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if isForbidden(scalar, newline: false) {
                let hex = String(scalar.value, radix: 16)
                result.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
