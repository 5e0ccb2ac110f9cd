public import HearthCore

/// An operator's command on the broker's local admin socket, sent as JSON in an `adminRequest` (docs/PROTOCOL.md §9).
public struct AdminRequest: Codable, Sendable, Equatable {
    /// What to do.
    public enum Command: String, Codable, Sendable, CaseIterable {
        /// Enrols `publicKey` as device `device` of `member` (a previously revoked key is enrolled again).
        case enroll
        /// Revokes `device`: its key is refused from now on and its connections are closed.
        case revoke
        /// Adds `entry` to `family` (absent: a member in no family).
        case addMember
        /// Removes `member` and their devices.
        case removeMember
        /// Sets `member`'s role to `role` (designate or undesignate a guardian).
        case setRole
        /// Records how `member`'s age was established: `ageAssurance`, one of Apple's `AgeRangeDeclaration` case names
        /// as the family file's `ageAssurance`, or `derived` to go back to who declared it.
        case setAgeAssurance
        /// Re-reads the family file and applies the families whose entry changed.
        case reload
        /// Returns the directory as stored (keys inline) and the revoked keys.
        case show
    }

    public var command: Command
    public var family: FamilyID?
    public var member: MemberID?
    public var device: DeviceID?
    public var publicKey: String?
    public var role: String?
    public var entry: FamilyFile.Member?
    public var ageAssurance: String?

    public init(
        _ command: Command, family: FamilyID? = nil, member: MemberID? = nil, device: DeviceID? = nil,
        publicKey: String? = nil,
        role: String? = nil, entry: FamilyFile.Member? = nil, ageAssurance: String? = nil
    ) {
        self.command = command
        self.family = family
        self.member = member
        self.device = device
        self.publicKey = publicKey
        self.role = role
        self.entry = entry
        self.ageAssurance = ageAssurance
    }

    /// `setAgeAssurance`'s word for "no assurance on record": the range says who declared the age.
    public static let derivedAssurance = "derived"
}

/// The JSON result of an admin command.
public struct AdminResult: Codable, Sendable, Equatable {
    /// One line saying what changed.
    public var summary: String
    /// Devices whose connections were closed.
    public var disconnectedDevices: [DeviceID]
    /// For `show`: the directory as stored.
    public var directory: FamilyFile?
    /// For `show`: the revoked keys.
    public var revokedKeys: [String]?

    public init(
        summary: String, disconnectedDevices: [DeviceID] = [], directory: FamilyFile? = nil,
        revokedKeys: [String]? = nil
    ) {
        self.summary = summary
        self.disconnectedDevices = disconnectedDevices
        self.directory = directory
        self.revokedKeys = revokedKeys
    }
}
