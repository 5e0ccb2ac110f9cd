import Foundation

extension PostgresURL {
    /// Why a password in the `store` setting is refused, wherever in it the password is.
    static let passwordRefusal = """
        store URL must not hold a password (it would show on command lines and in logs): \
        give it in storePasswordFile or the HEARTH_STORE_PASSWORD environment variable
        """

    /// True when `text` carries a password: in a URL's authority (`USER:PASSWORD@`), as a query parameter
    /// (`?password=`), or as libpq's `password=...` keyword (the `key=value` form).
    static func holdsPassword(_ text: String) -> Bool {
        if userInfo(text)?.contains(":") == true { return true }
        if let components = URLComponents(string: text), components.scheme != nil {
            if components.password != nil { return true }
            if components.queryItems?.contains(where: { $0.name.lowercased() == "password" }) == true { return true }
        }
        return text.range(of: #"(^|[\s?&;])password\s*="#, options: [.regularExpression, .caseInsensitive]) != nil
    }

    /// `text` fit to show in an error or a log: a password in the authority, the whole query and fragment, and the
    /// value of any `password=` keyword replaced by `REDACTED`.
    public static func redacted(_ text: String) -> String {
        var shown = text
        if let start = shown.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            shown = String(shown[..<start]) + String(shown[start]) + "REDACTED"
        }
        // The authority's `user:password@`: keep the user.
        if let info = userInfo(shown), let colon = info.firstIndex(of: ":") {
            shown.replaceSubrange(shown.index(after: colon)..<info.endIndex, with: "REDACTED")
        }
        // libpq's keyword form, quoted or not.
        shown = shown.replacingOccurrences(
            of: #"(password\s*=\s*)('([^'\\]|\\.)*'|\S+)"#, with: "$1REDACTED",
            options: [.regularExpression, .caseInsensitive])
        return shown
    }

    /// What stands between `://` and the last `@` before any query: `user` or `user:password`, taken loosely, so that
    /// a password holding `/` or `@` is found too.
    private static func userInfo(_ text: String) -> Substring? {
        guard let scheme = text.range(of: "://") else { return nil }
        let rest = text[scheme.upperBound...]
        let beforeQuery = rest[..<(rest.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? rest.endIndex)]
        guard let at = beforeQuery.lastIndex(of: "@") else { return nil }
        return beforeQuery[..<at]
    }
}
