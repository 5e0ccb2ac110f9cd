public import HearthCore
import HearthLab

/// Families to launch, declared in Swift: members, their roles and their devices.
public struct FleetSpec: Sendable {
    public struct Member: Sendable {
        public var id: MemberID
        public var role: MemberRole
        /// `YYYY-MM-DD`; empty for a member with no birth date on record.
        public var birthDate: String
        public var region: String
        public var communicationLimits: Bool
        /// The family file's `ageAssurance` (an `AgeDeclaration` name); nil: derived.
        public var ageAssurance: String? = nil
        /// Device ids; a child's run child-device, a parent's or adult's parent-device.
        public var devices: [DeviceID]

        public init(
            _ id: MemberID, role: MemberRole, birthDate: String? = nil, region: String = "US",
            communicationLimits: Bool = true,
            devices: [DeviceID]
        ) {
            self.id = id
            self.role = role
            self.birthDate = birthDate ?? (role == .child ? "2016-01-01" : "1985-01-01")
            self.region = region
            self.communicationLimits = communicationLimits
            self.devices = devices
        }

        public static func organizer(_ id: MemberID, devices: [DeviceID]) -> Member {
            Member(id, role: .organizer, devices: devices)
        }
        public static func guardian(_ id: MemberID, devices: [DeviceID]) -> Member {
            Member(id, role: .guardian, devices: devices)
        }
        public static func adult(_ id: MemberID, devices: [DeviceID]) -> Member {
            Member(id, role: .adult, devices: devices)
        }
        public static func child(_ id: MemberID, devices: [DeviceID], communicationLimits: Bool = true) -> Member {
            Member(id, role: .child, communicationLimits: communicationLimits, devices: devices)
        }
    }

    public struct Family: Sendable {
        public var id: FamilyID
        public var members: [Member]
        /// The family file's `questionLifetime`, e.g. `"3d"`; nil: the broker's default.
        public var questionLifetime: String?
        /// The family file's `questionReminder`, e.g. `"1h"`; nil: the broker's default.
        public var questionReminder: String?

        public init(
            _ id: FamilyID, members: [Member], questionLifetime: String? = nil, questionReminder: String? = nil
        ) {
            self.id = id
            self.members = members
            self.questionLifetime = questionLifetime
            self.questionReminder = questionReminder
        }
    }

    /// Where the broker keeps its state.
    public enum Store: String, Sendable, Codable {
        /// The SQLite file in the broker's state directory.
        case sqlite
        /// A throwaway PostgreSQL server of the fleet's own (`PostgresServer`), removed with the fleet.
        case postgres
    }

    public var families: [Family]
    /// Members in no family.
    public var unaffiliated: [Member]
    public var store: Store
    /// How many brokers share the families; more than one needs `.postgres` (each its own process, key, ports and
    /// state directory, on the fleet's one PostgreSQL server) and every device is configured with all of them.
    public var brokers: Int

    public init(families: [Family], unaffiliated: [Member] = [], store: Store = .sqlite, brokers: Int = 1) {
        self.families = families
        self.unaffiliated = unaffiliated
        self.store = store
        self.brokers = brokers
    }

    /// Every member, with its family.
    var allMembers: [(FamilyID?, Member)] {
        families.flatMap { family in family.members.map { (Optional(family.id), $0) } } + unaffiliated.map { (nil, $0) }
    }
}
