import Foundation

/// A person names a question or prompt by a unique prefix of its id.
enum IDPrefix {
    /// The one id among `waiting` that starts with `prefix`; else the full id `prefix` spells (not waiting here: the
    /// broker says why); else an error naming `what`, followed by `hint` (where to list them).
    static func resolve(_ prefix: String, among waiting: [UUID], what: String, hint: String) throws -> UUID {
        let matches = waiting.filter { $0.uuidString.lowercased().hasPrefix(prefix.lowercased()) }
        if matches.count == 1 { return matches[0] }
        if let id = UUID(uuidString: prefix) { return id }
        throw CommandFailure(
            matches.isEmpty
                ? "no waiting \(what) starts with '\(prefix)'; \(hint)"
                : "'\(prefix)' matches \(matches.count) \(what)s; give more of the id")
    }
}
