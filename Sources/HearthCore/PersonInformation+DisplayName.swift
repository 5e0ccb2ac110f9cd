import Foundation

extension PersonInformation {
    /// The person's name as a parent reads it: the given, middle and family names, else the nickname; nil without
    /// any. Raw text, which a surface escapes as it shows it (`ShortText.escaped`, HTML escaping).
    public var displayName: String? {
        guard let name = nameComponents else { return nil }
        let full = [name.givenName, name.middleName, name.familyName].compactMap { $0 }.filter { !$0.isEmpty }
        if !full.isEmpty { return full.joined(separator: " ") }
        guard let nickname = name.nickname, !nickname.isEmpty else { return nil }
        return nickname
    }
}
