import Foundation
import HearthCore
import HearthProtocol
import ZeroMQ

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
        func fail(_ key: String, _ reason: String) -> ConfigurationError {
            ConfigurationError(source: source, key: key, reason: reason)
        }
        var resolved = file
        // Indexes only: a path is written only for an error, and a copy of each member, its path and a closure to
        // write it back made this list a third of the members' own size in a large file.
        var entries: [(family: Int?, index: Int)] = []
        var deviceCount = 0
        func memberPath(_ f: Int?, _ m: Int) -> String { f.map { "families[\($0)].members[\(m)]" } ?? "unaffiliated[\(m)]" }
        var familyIDs: Set<FamilyID> = []
        for (f, family) in file.families.enumerated() {
            guard Identifier.isValid(family.id) else { throw fail("families[\(f)].id", "must be 1-64 characters of A-Z a-z 0-9 . _ -") }
            guard familyIDs.insert(family.id).inserted else { throw fail("families[\(f)].id", "family id '\(family.id)' is used twice") }
            guard family.members.count <= maxFamilyMembers else {
                throw fail("families[\(f)].members", "a family has at most \(maxFamilyMembers) members, found \(family.members.count)")
            }
            for (m, member) in family.members.enumerated() {
                entries.append((f, m))
                deviceCount += member.devices?.count ?? 0
            }
        }
        for (m, member) in (file.unaffiliated ?? []).enumerated() {
            entries.append((nil, m))
            deviceCount += member.devices?.count ?? 0
        }
        // Sized once: growing each dictionary held its old and new storage at once.
        members.reserveCapacity(entries.count)
        devices.reserveCapacity(deviceCount)
        deviceByKey.reserveCapacity(deviceCount)
        parentsByFamily.reserveCapacity(file.families.count)

        var organizerCount: [FamilyID: Int] = [:]
        organizerCount.reserveCapacity(file.families.count)
        let utc = TimeZone(identifier: "UTC")!
        for (f, m) in entries {
            let familyID = f.map { file.families[$0].id }
            let entry = f.map { file.families[$0].members[m] } ?? file.unaffiliated![m]
            var path: String { memberPath(f, m) }
            guard Identifier.isValid(entry.id) else { throw fail("\(path).id", "must be 1-64 characters of A-Z a-z 0-9 . _ -") }
            guard members[entry.id] == nil else { throw fail("\(path).id", "member id '\(entry.id)' is used twice") }
            guard let role = MemberRole(name: entry.role) else {
                throw fail("\(path).role", "'\(entry.role)' is not one of organizer, guardian, adult, child")
            }
            if familyID == nil, role != .child, role != .adult {
                throw fail("\(path).role", "a member in no family can only be a child or an adult")
            }
            var birthDate: BirthDate?
            if let text = entry.birthDate {
                guard let date = BirthDate(text) else { throw fail("\(path).birthDate", "'\(text)' is not a real YYYY-MM-DD date after 1900") }
                birthDate = date
            }
            if let region = entry.region, !RegionRules.isValidRegionCode(region) {
                throw fail("\(path).region", "'\(region)' is not an ISO 3166 region code such as US or US-AL")
            }
            var timeZone = utc
            if let name = entry.timeZone {
                guard let zone = TimeZone(identifier: name) else { throw fail("\(path).timeZone", "'\(name)' is not an IANA time zone such as Europe/Paris") }
                timeZone = zone
            }
            if let name = entry.name, name.utf8.count > 200 { throw fail("\(path).name", "at most 200 bytes") }
            members[entry.id] = Member(
                id: entry.id, familyID: familyID, name: entry.name ?? entry.id, role: role, birthDate: birthDate,
                region: entry.region?.uppercased(), timeZone: timeZone, initialLimits: entry.communicationLimits)
            if let familyID, role.isParent { parentsByFamily[familyID, default: []].append(entry.id) }
            if let familyID, role == .organizer { organizerCount[familyID, default: 0] += 1 }

            for (d, device) in (entry.devices ?? []).enumerated() {
                var dpath: String { "\(path).devices[\(d)]" }
                guard Identifier.isValid(device.id) else { throw fail("\(dpath).id", "must be 1-64 characters of A-Z a-z 0-9 . _ -") }
                guard devices[device.id] == nil else { throw fail("\(dpath).id", "device id '\(device.id)' is used twice") }
                let key: String
                if let inline = device.publicKey {
                    key = inline
                } else if let keyFile = device.keyFile {
                    let url = URL(fileURLWithPath: keyFile, relativeTo: URL(fileURLWithPath: keysDirectory, isDirectory: true))
                    guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                        throw fail("\(dpath).keyFile", "cannot read \(url.path)")
                    }
                    key = text.trimmingCharacters(in: .whitespacesAndNewlines)
                } else {
                    throw fail(dpath, "needs publicKey or keyFile")
                }
                guard Z85.isValidKey(key) else { throw fail("\(dpath).publicKey", "not a 40-character Z85 CURVE public key") }
                guard deviceByKey[key] == nil else { throw fail("\(dpath).publicKey", "the same key is enrolled twice") }
                devices[device.id] = Device(id: device.id, memberID: entry.id, publicKey: key)
                deviceByKey[key] = device.id
                // Written only when it changes: rewriting an inline key copied every member's arrays of a large file.
                let inline = FamilyFile.Device(id: device.id, publicKey: key)
                if device != inline {
                    if let f { resolved.families[f].members[m].devices?[d] = inline } else { resolved.unaffiliated?[m].devices?[d] = inline }
                }
            }
        }
        for (f, family) in file.families.enumerated() where organizerCount[family.id, default: 0] != 1 {
            throw fail("families[\(f)].members", "a family has exactly one organizer, found \(organizerCount[family.id, default: 0])")
        }
        self.file = resolved
    }

    /// `directory` with `rules`, its file as stored rows give it back (families sorted by id, members in no family as a
    /// list): what building it again from those rows makes, without resolving and validating every family again.
    init(storedFormOf directory: Directory, rules: RegionRules) {
        self.rules = rules
        members = directory.members
        devices = directory.devices
        deviceByKey = directory.deviceByKey
        parentsByFamily = directory.parentsByFamily
        file = FamilyFile(families: directory.file.families.sorted { $0.id < $1.id }, unaffiliated: directory.file.unaffiliated ?? [])
    }

    /// The member a device belongs to.
    public func member(ofDevice id: DeviceID) -> Member? {
        devices[id].flatMap { members[$0.memberID] }
    }

    /// The parents and guardians of a family.
    public func parents(of family: FamilyID?) -> [MemberID] {
        family.flatMap { parentsByFamily[$0] } ?? []
    }

    /// Whether `member` is a child on the day `date` falls on in their time zone: below their region's age of majority
    /// when their birth date is known, else as declared.
    public func isChild(_ member: Member, on date: Date) -> Bool {
        guard let birthDate = member.birthDate else { return member.role == .child }
        if member.role.isParent { return false }
        return birthDate.age(on: date, in: member.timeZone) < rules.ageOfMajority(in: member.region)
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
