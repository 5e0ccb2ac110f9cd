import Foundation
public import HearthCore

/// The broker's family file: families, their members and each member's devices (docs/CONFIGURATION.md). Also the JSON
/// of the admin socket's `show` and `addMember` (§6.7); reading and writing YAML is `FamilyFile+YAML` (HearthService).
public struct FamilyFile: Codable, Sendable, Equatable {
    public struct Device: Codable, Sendable, Equatable {
        public var id: DeviceID
        /// The device's CURVE public key, Z85 (40 characters). Either this or `keyFile`.
        public var publicKey: String?
        /// A file holding the public key, relative to the keys directory. Either this or `publicKey`.
        public var keyFile: String?

        public init(id: DeviceID, publicKey: String? = nil, keyFile: String? = nil) {
            self.id = id
            self.publicKey = publicKey
            self.keyFile = keyFile
        }
    }

    public struct Member: Codable, Sendable, Equatable {
        public var id: MemberID
        public var name: String?
        /// `organizer`, `guardian` (or `parent`), `adult` or `child`.
        public var role: String
        /// `YYYY-MM-DD`; never leaves the broker.
        public var birthDate: String?
        /// ISO 3166 region code, e.g. `US` or `US-AL`: decides the age of majority.
        public var region: String?
        /// IANA time zone, e.g. `America/New_York` (default UTC): birthdays and downtime follow it.
        public var timeZone: String?
        /// A new child's Communication Limits: on unless set to false (the age-appropriate defaults apply otherwise).
        public var communicationLimits: Bool?
        public var devices: [Device]?
        /// How the member's age was established, and by whom: an `AgeDeclaration` name (`governmentIDChecked`,
        /// `guardianPaymentChecked`, `confirmed`…). Absent: who declared it, from the age and the family.
        public var ageAssurance: String?

        public init(
            id: MemberID, name: String? = nil, role: String, birthDate: String? = nil, region: String? = nil,
            timeZone: String? = nil, communicationLimits: Bool? = nil, devices: [Device]? = nil,
            ageAssurance: String? = nil
        ) {
            self.ageAssurance = ageAssurance
            self.timeZone = timeZone
            self.id = id
            self.name = name
            self.role = role
            self.birthDate = birthDate
            self.region = region
            self.communicationLimits = communicationLimits
            self.devices = devices
        }
    }

    public struct Family: Codable, Sendable, Equatable {
        public var id: FamilyID
        public var name: String?
        public var members: [Member]
        /// How long a question without an earlier expiration date waits for a parent, e.g. `72h`, `3d`, `90m`
        /// (default 72 hours; 1 minute to 30 days).
        public var questionLifetime: String?
        /// How long before a question expires its parents are reminded, once, e.g. `1h` (default 1 hour; `0s`: no
        /// reminder). A question with a shorter life is reminded of halfway through it.
        public var questionReminder: String?

        public init(
            id: FamilyID, name: String? = nil, members: [Member], questionLifetime: String? = nil,
            questionReminder: String? = nil
        ) {
            self.id = id
            self.name = name
            self.members = members
            self.questionLifetime = questionLifetime
            self.questionReminder = questionReminder
        }
    }

    public var families: [Family]
    /// Members in no family (a child with no Family Sharing group gets default responses).
    public var unaffiliated: [Member]?

    public init(families: [Family], unaffiliated: [Member]? = nil) {
        self.families = families
        self.unaffiliated = unaffiliated
    }
}
