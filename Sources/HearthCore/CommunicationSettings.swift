/// A child's Communication Limits, set by the family's organizer or a guardian.
public struct CommunicationSettings: Hashable, Sendable, Codable {
    /// Who the child may talk to.
    public enum Scope: UInt8, Hashable, Sendable, Codable, CaseIterable {
        /// Contacts and approved handles (and emergency numbers).
        case contactsOnly = 1
        /// As contacts only, and any group conversation with at least one contact in it.
        case contactsAndGroups = 2
        /// Anyone.
        case everyone = 3
        /// During downtime only: the contacts marked as allowed during downtime (and emergency numbers).
        case specificContacts = 4

        /// The spelling used in config files and on the command line.
        public var name: String {
            switch self {
            case .contactsOnly: "contactsOnly"
            case .contactsAndGroups: "contactsAndGroups"
            case .everyone: "everyone"
            case .specificContacts: "specificContacts"
            }
        }

        public init?(name: String) {
            guard let scope = Self.allCases.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                return nil
            }
            self = scope
        }
    }

    /// A daily downtime window in the child's time zone, in minutes after midnight; it may span midnight (22:00-07:00).
    public struct Downtime: Hashable, Sendable, Codable {
        public var startMinute: UInt16
        public var endMinute: UInt16

        public init(startMinute: UInt16, endMinute: UInt16) {
            self.startMinute = startMinute
            self.endMinute = endMinute
        }

        /// True when `minute` (0..<1440) falls inside the window; an empty window (start == end) never applies.
        public func contains(minute: Int) -> Bool {
            let start = Int(startMinute)
            let end = Int(endMinute)
            if start == end { return false }
            return start < end ? (start..<end).contains(minute) : minute >= start || minute < end
        }

        /// Parses `HH:MM-HH:MM`.
        public init?(text: String) {
            let parts = text.split(separator: "-")
            guard parts.count == 2, let start = Self.minute(parts[0]), let end = Self.minute(parts[1]) else {
                return nil
            }
            self.init(startMinute: start, endMinute: end)
        }

        public var text: String {
            func hhmm(_ m: UInt16) -> String {
                (m / 60 < 10 ? "0" : "") + "\(m / 60):" + (m % 60 < 10 ? "0" : "") + "\(m % 60)"
            }
            return "\(hhmm(startMinute))-\(hhmm(endMinute))"
        }

        private static func minute(_ text: Substring) -> UInt16? {
            let hm = text.split(separator: ":")
            guard hm.count == 2, let h = UInt16(hm[0]), let m = UInt16(hm[1]), h < 24, m < 60 else { return nil }
            return h * 60 + m
        }
    }

    /// Communication Limits on (the default) or off. Off: the child's asks get their default response at once.
    public var enabled: Bool
    /// Who the child may talk to during Screen Time: contactsOnly, contactsAndGroups or everyone.
    public var screenTime: Scope
    /// During downtime: contactsOnly, contactsAndGroups, everyone or specificContacts.
    public var downtime: Scope
    /// When downtime is in force; nil: never.
    public var downtimeSchedule: Downtime?
    /// Whether the child may add and remove their own contacts.
    public var allowContactEditing: Bool

    public init(
        enabled: Bool = true, screenTime: Scope = .contactsOnly, downtime: Scope = .contactsOnly,
        downtimeSchedule: Downtime? = nil,
        allowContactEditing: Bool = false
    ) {
        self.enabled = enabled
        self.screenTime = screenTime
        self.downtime = downtime
        self.downtimeSchedule = downtimeSchedule
        self.allowContactEditing = allowContactEditing
    }
}

/// One of a child's contacts, kept by the broker and managed by a parent (or the child, when allowed).
public struct Contact: Hashable, Sendable, Codable {
    public var handle: CommunicationHandle
    /// Reachable during downtime when the downtime scope is `specificContacts`.
    public var allowedDuringDowntime: Bool

    public init(handle: CommunicationHandle, allowedDuringDowntime: Bool = false) {
        self.handle = handle
        self.allowedDuringDowntime = allowedDuringDowntime
    }
}
