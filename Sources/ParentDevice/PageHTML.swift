import Foundation

/// The page's HTML pieces for text: escaped always, and what an app or a child controls also isolated in `<bdi>`, so a
/// right-to-left override in a handle cannot reverse the words around it (or, with its control characters shown as
/// `U+202E`, itself).
enum PageHTML {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    /// Text an app or a child controls: escaped, its control and bidi characters shown by their code point, inside
    /// `<bdi>`.
    static func untrusted(_ text: String) -> String {
        var out = "<bdi>"
        var plain = ""
        for scalar in text.unicodeScalars {
            if isHidden(scalar) {
                out += escape(plain)
                plain = ""
                out += "<span class=\"ctl\">U+\(String(scalar.value, radix: 16, uppercase: true).leftPadded(4))</span>"
            } else {
                plain.unicodeScalars.append(scalar)
            }
        }
        return out + escape(plain) + "</bdi>"
    }

    /// C0 and C1 controls (a newline too: names and handles have none) and the bidi controls that reorder text.
    static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0...0x1F, 0x7F...0x9F, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: true
        default: false
        }
    }

    /// A notice in plain text whose untrusted parts `PageWords.isolated` marked with FSI … PDI: escaped, each marked
    /// part in `<bdi>`, every `<bdi>` closed whatever the text holds.
    static func notice(_ text: String) -> String {
        var out = ""
        var plain = ""
        var depth = 0
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\u{2068}":
                out += escape(plain) + "<bdi>"
                depth += 1
            case "\u{2069}" where depth > 0:
                out += escape(plain) + "</bdi>"
                depth -= 1
            default:
                if isHidden(scalar) { continue }
                plain.unicodeScalars.append(scalar)
                continue
            }
            plain = ""
        }
        return out + escape(plain) + String(repeating: "</bdi>", count: depth)
    }

    /// A `<time>` saying how long ago or how soon `date` is (`prefix` first: "asked", "expires"), with the local
    /// date and time in its tooltip.
    static func time(_ date: Date, _ prefix: String, now: Date) -> String {
        let iso = date.formatted(.iso8601)
        let absolute = escape(PageWords.absolute(date))
        let words = escape("\(prefix) \(PageWords.relative(date, now: now))".trimmingCharacters(in: .whitespaces))
        return "<time datetime=\"\(iso)\" title=\"\(absolute)\">\(words)</time>"
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
