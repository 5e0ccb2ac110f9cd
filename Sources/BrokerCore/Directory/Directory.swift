public import Foundation
public import HearthCore
public import HearthProtocol

/// Who the broker knows: families, members and enrolled devices, looked up on every command and every CURVE handshake.
///
/// Built from a `FamilyFile` (the config file, or the broker's stored copy of it as edited by admin commands), and
/// validated as a whole: an invalid file, or an admin change that would make one, is refused with the key that breaks.
public struct Directory: Sendable {
    public struct Member: Sendable, Equatable {
        public var id: MemberID
        public var familyID: FamilyID?
        public var name: String
        /// The role as declared: organizer, guardian, adult or child. `Directory.isChild` decides child-ness.
        public var role: MemberRole
        public var birthDate: BirthDate?
        public var region: String?
        /// The member's time zone: their birthday and a child's downtime schedule follow it.
        public var timeZone: TimeZone
        /// The file's `communicationLimits`; used only when the child's settings are first made.
        public var initialLimits: Bool?
        /// The file's `ageAssurance`: how the age was established; nil: who declared it, derived on the day.
        public var ageAssurance: AgeDeclaration? = nil
    }

    public struct Device: Sendable, Equatable {
        public var id: DeviceID
        public var memberID: MemberID
        public var publicKey: String
    }

    /// Most members a family may have (Family Sharing's limit is 6).
    public static let defaultMaxFamilyMembers = 6

    public private(set) var members: [MemberID: Member] = [:]
    public private(set) var devices: [DeviceID: Device] = [:]
    public private(set) var deviceByKey: [String: DeviceID] = [:]
    public private(set) var parentsByFamily: [FamilyID: [MemberID]] = [:]
    /// The families that set their own question times (`questionLifetime`, `questionReminder`); the others have
    /// `QuestionTimes.standard`.
    public private(set) var questionTimesByFamily: [FamilyID: QuestionTimes] = [:]
    /// The file this directory was built from, keys resolved inline: what the broker stores and admin commands edit.
    public private(set) var file = FamilyFile(families: [], unaffiliated: [])
    public let rules: RegionRules

    public init(rules: RegionRules = .builtIn) {
        self.rules = rules
    }

    /// Resolves a family file; `keysDirectory` anchors relative `keyFile` paths. Throws on the first invalid entry.
    public init(
        file: FamilyFile, keysDirectory: String, source: String, rules: RegionRules = .builtIn,
        maxFamilyMembers: Int = Directory.defaultMaxFamilyMembers
    ) throws {
        self.rules = rules
        let check = FileCheck(source: source, keysDirectory: keysDirectory)
        var resolved = file
        let (entries, deviceCount) = try check.entries(of: file, maxFamilyMembers: maxFamilyMembers)
        // Sized once: growing each dictionary held its old and new storage at once.
        members.reserveCapacity(entries.count)
        devices.reserveCapacity(deviceCount)
        deviceByKey.reserveCapacity(deviceCount)
        parentsByFamily.reserveCapacity(file.families.count)

        var organizerCount: [FamilyID: Int] = [:]
        organizerCount.reserveCapacity(file.families.count)
        for (f, m) in entries {
            let familyID = f.map { file.families[$0].id }
            let entry = f.map { file.families[$0].members[m] } ?? file.unaffiliated![m]
            let path = FileCheck.memberPath(f, m)
            guard Identifier.isValid(entry.id) else { throw check.fail("\(path).id", FileCheck.idRule) }
            guard members[entry.id] == nil else {
                throw check.fail("\(path).id", "member id '\(entry.id)' is used twice")
            }
            let member = try check.member(entry, familyID: familyID, path: path)
            members[entry.id] = member
            if let familyID, member.role.isParent { parentsByFamily[familyID, default: []].append(entry.id) }
            if let familyID, member.role == .organizer { organizerCount[familyID, default: 0] += 1 }

            for (d, device) in (entry.devices ?? []).enumerated() {
                let dpath = "\(path).devices[\(d)]"
                guard Identifier.isValid(device.id) else { throw check.fail("\(dpath).id", FileCheck.idRule) }
                guard devices[device.id] == nil else {
                    throw check.fail("\(dpath).id", "device id '\(device.id)' is used twice")
                }
                let key = try check.key(of: device, path: dpath)
                guard deviceByKey[key] == nil else {
                    throw check.fail("\(dpath).publicKey", "the same key is enrolled twice")
                }
                devices[device.id] = Device(id: device.id, memberID: entry.id, publicKey: key)
                deviceByKey[key] = device.id
                // Written only when it changes: rewriting an inline key copied every member's arrays of a large file.
                let inline = FamilyFile.Device(id: device.id, publicKey: key)
                if device != inline {
                    if let f {
                        resolved.families[f].members[m].devices?[d] = inline
                    } else {
                        resolved.unaffiliated?[m].devices?[d] = inline
                    }
                }
            }
        }
        for (f, family) in file.families.enumerated() where organizerCount[family.id, default: 0] != 1 {
            let found = organizerCount[family.id, default: 0]
            throw check.fail("families[\(f)].members", "a family has exactly one organizer, found \(found)")
        }
        for (f, family) in file.families.enumerated() {
            if let times = try check.questionTimes(of: family, path: "families[\(f)]") {
                questionTimesByFamily[family.id] = times
            }
        }
        self.file = resolved
    }

    /// `directory` with `rules`, its file as stored rows give it back (families sorted by id, members in no family as a
    /// list): what building it again from those rows makes, without resolving and validating every family again.
    package init(storedFormOf directory: Directory, rules: RegionRules) {
        self.rules = rules
        members = directory.members
        devices = directory.devices
        deviceByKey = directory.deviceByKey
        parentsByFamily = directory.parentsByFamily
        questionTimesByFamily = directory.questionTimesByFamily
        file = FamilyFile(
            families: directory.file.families.sorted { $0.id < $1.id }, unaffiliated: directory.file.unaffiliated ?? [])
    }

    /// The member a device belongs to.
    public func member(ofDevice id: DeviceID) -> Member? {
        devices[id].flatMap { members[$0.memberID] }
    }

    /// How long a family's questions wait, and when their parents are reminded.
    public func questionTimes(of family: FamilyID?) -> QuestionTimes {
        family.flatMap { questionTimesByFamily[$0] } ?? .standard
    }

    /// The parents and guardians of a family.
    public func parents(of family: FamilyID?) -> [MemberID] {
        family.flatMap { parentsByFamily[$0] } ?? []
    }

    /// Whether `member` is a child on the day `date` falls on in their time zone: below their region's age of majority
    /// when their birth date is known, else as declared.
    public func isChild(_ member: Member, on date: Date) -> Bool {
        isChild(member) { BirthDate(dayOf: date, in: $0) }
    }

    /// `isChild(_:on:)` with the day given by `today` for the member's time zone (the writer keeps the day of its
    /// transaction's time per time zone: `LocalTimes`).
    func isChild(_ member: Member, today: (TimeZone) -> BirthDate) -> Bool {
        guard let birthDate = member.birthDate else { return member.role == .child }
        if member.role.isParent { return false }
        return birthDate.age(onDay: today(member.timeZone)) < rules.ageOfMajority(in: member.region)
    }

    /// The role to report on `date`: a declared adult who is under age is a child, a declared child who came of age an adult.
    public func effectiveRole(_ member: Member, on date: Date) -> MemberRole {
        if member.role.isParent { return member.role }
        return isChild(member, on: date) ? .child : .adult
    }

    /// The children of a family on `date`.
    public func children(of family: FamilyID, on date: Date) -> [Member] {
        members.values.filter { $0.familyID == family && isChild($0, on: date) }
    }
}
