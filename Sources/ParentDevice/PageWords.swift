import Foundation
import HearthCore

/// What the page says in words instead of the wire's names: handles, actions, times, limits and the notice after an
/// answer. Plain text: the page escapes and isolates what an app or a child controls (`PageHTML`).
enum PageWords {
    /// "phone +1 555 123 4567", "email leo@example.com", "username dragonslayer42".
    static func kind(_ kind: CommunicationHandle.Kind) -> String {
        switch kind {
        case .phoneNumber: "phone"
        case .emailAddress: "email"
        case .custom: "username"
        }
    }

    /// The person's name as the app gave it: given, middle and family names, else the nickname; nil without one.
    static func name(_ components: PersonNameComponents?) -> String? {
        guard let components else { return nil }
        let parts = [components.givenName, components.middleName, components.familyName].compactMap { part in
            part.flatMap { $0.isEmpty ? nil : $0 }
        }
        if !parts.isEmpty { return parts.joined(separator: " ") }
        return components.nickname.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// "message and video call", in the order PermissionKit lists the actions; "talk to" without any.
    static func actions(_ actions: Set<CommunicationTopic.Action>) -> String {
        let words = actions.sorted { $0.rawValue < $1.rawValue }.map(verb)
        return words.isEmpty ? "talk to" : list(words)
    }

    private static func verb(_ action: CommunicationTopic.Action) -> String {
        switch action {
        case .message: "message"
        case .call: "call"
        case .audioCall: "audio call"
        case .videoCall: "video call"
        case .chat: "chat with"
        case .communicate: "communicate with"
        case .connect: "connect with"
        case .follow: "follow"
        case .beFollowed: "be followed by"
        case .friend: "add as a friend"
        }
    }

    /// "a", "a and b", "a, b and c".
    static func list(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        return items.count == 1 ? last : items.dropLast().joined(separator: ", ") + " and " + last
    }

    /// "1 question", "3 questions".
    static func count(_ number: Int, _ noun: String) -> String {
        "\(number) \(noun)\(number == 1 ? "" : "s")"
    }

    /// How far `date` is from `now`: "just now", "5 minutes ago", "in 3 days".
    static func relative(_ date: Date, now: Date) -> String {
        let seconds = date.timeIntervalSince(now)
        let span = abs(seconds)
        if span < 45 { return seconds < 0 ? "just now" : "in less than a minute" }
        let amount: String
        switch span {
        case ..<(59.5 * 60): amount = count(max(1, Int((span / 60).rounded())), "minute")
        case ..<(36 * 3600): amount = count(Int((span / 3600).rounded()), "hour")
        case ..<(45 * 86400): amount = count(Int((span / 86400).rounded()), "day")
        case ..<(548 * 86400): amount = count(Int((span / (30 * 86400)).rounded()), "month")
        default: amount = count(Int((span / (365 * 86400)).rounded()), "year")
        }
        return seconds < 0 ? "\(amount) ago" : "in \(amount)"
    }

    /// The moment in this device's time zone, for a tooltip: "Sat 28 Nov 2026, 14:05 UTC".
    static func absolute(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_GB")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "EEE d MMM yyyy, HH:mm zzz"
        return formatter.string(from: date)
    }

    /// Who a scope lets the child talk to.
    static func scope(_ scope: CommunicationSettings.Scope) -> String {
        switch scope {
        case .contactsOnly: "only contacts and approved people"
        case .contactsAndGroups: "contacts and approved people, and groups with at least one contact in them"
        case .everyone: "anyone"
        case .specificContacts: "only the contacts allowed during downtime"
        }
    }

    /// A child's limits as sentences.
    static func limits(_ settings: CommunicationSettings, child: String) -> [String] {
        guard settings.enabled else {
            return ["Communication Limits are off: \(child)’s apps get their default answer without asking anyone."]
        }
        let window = settings.downtimeSchedule.map { "from \($0.text.replacingOccurrences(of: "-", with: " to "))" }
        return [
            "During Screen Time, \(child) can talk to \(scope(settings.screenTime)).",
            "During downtime (\(window ?? "none scheduled")), \(child) can talk to \(scope(settings.downtime)).",
            "\(child) \(settings.allowContactEditing ? "can" : "cannot") change their own contacts.",
        ]
    }
}
