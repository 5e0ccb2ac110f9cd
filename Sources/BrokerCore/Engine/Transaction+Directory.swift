import Foundation
import HearthCore
import HearthProtocol
import Logging

extension Transaction {
    /// Where admin edits are validated from, in errors.
    static let storedSource = "the broker's directory"

    /// Merges the config file into the stored directory: a family whose entry in the file changed since it was last
    /// applied (or that is new) is taken from the file; a family that came from the file and left it is removed; the
    /// others, including admin edits of unchanged entries, stay as stored. Revoked keys are not enrolled again.
    mutating func applyConfiguration(_ configured: Directory) throws -> String {
        // The stored entries are decoded only if some family is taken from the file: a restart with an unchanged file
        // needs only their hashes.
        let storedHashes = try store.sourceHashes()
        let revoked = try store.revokedKeys()
        let encoder = Stored.Family.entryEncoder()
        var hashes: [FamilyID: String?] = [:]
        // Families new to the store and stored as the file has them: hashed from the bytes stored, encoded once.
        var hashedWhenSaved: Set<FamilyID> = []
        var withoutRevoked: [FamilyID: FamilyFile.Family] = [:]
        var takenIDs: Set<FamilyID> = []
        var taken: [String] = []
        let fileRows = Stored.Family.rows(of: configured.file)
        for (id, family) in fileRows {
            if let stored = storedHashes[id] {
                let hash = Self.hash(family, encoder: encoder)
                hashes[id] = hash
                if stored == hash { continue }
            }
            if let kept = dropRevokedKeys(family, revoked: revoked) {
                withoutRevoked[id] = kept
                if hashes[id] == nil { hashes[id] = Self.hash(family, encoder: encoder) }
            } else if hashes[id] == nil {
                hashedWhenSaved.insert(id)
            }
            takenIDs.insert(id)
            taken.append(id.isEmpty ? "(no family)" : id)
        }
        var removed: [FamilyID] = []
        for (id, hash) in storedHashes where hash != nil && hashes[id] == nil {
            removed.append(id)
            taken.append("-\(id)")
        }
        guard !taken.isEmpty else { return "the family file is unchanged" }
        var rows: [FamilyID: Stored.Family] = [:]
        let merged: Directory
        if storedHashes.isEmpty, withoutRevoked.isEmpty,
            fileRows.allSatisfy({ $0.family.members.count <= policy.maxFamilyMembers })
        {
            // Nothing stored and nothing dropped: the result is the file itself, already validated; building it again
            // from the same families held a second directory of every family at once.
            merged = Directory(storedFormOf: configured, rules: policy.regions)
        } else {
            rows = try store.familyRows()
            var families = rows.mapValues(\.family)
            for (id, family) in fileRows where takenIDs.contains(id) { families[id] = withoutRevoked[id] ?? family }
            for id in removed { families[id] = nil }
            merged = try Directory(
                file: Stored.Family.file(from: families), keysDirectory: "/",
                source: "\(Self.storedSource) merged with the family file",
                rules: policy.regions, maxFamilyMembers: policy.maxFamilyMembers)
        }
        try replaceDirectory(with: merged, sourceHashes: hashes, hashedWhenSaved: hashedWhenSaved, storedRows: rows)
        return "applied from the family file: \(taken.joined(separator: ", "))"
    }

    /// `family` without the devices whose key is revoked, or nil when it names none.
    private func dropRevokedKeys(_ family: FamilyFile.Family, revoked: Set<String>) -> FamilyFile.Family? {
        let isRevoked = { (device: FamilyFile.Device) in device.publicKey.map(revoked.contains) == true }
        guard !revoked.isEmpty, family.members.contains(where: { $0.devices?.contains(where: isRevoked) == true })
        else { return nil }
        var family = family
        // Only members naming a revoked key are rewritten: filtering every member copied each one's arrays.
        for m in family.members.indices where family.members[m].devices?.contains(where: isRevoked) == true {
            family.members[m].devices = family.members[m].devices?.filter { device in
                guard isRevoked(device) else { return true }
                logger.warning(
                    "the family file names a revoked key; not enrolled", metadata: ["device": "\(device.id)"])
                return false
            }
        }
        return family
    }

    /// Stores `new`, then applies what changed: a child who left a family has their pending questions resolved with the
    /// default response; a new parent or guardian receives the family's pending questions; new children get settings;
    /// devices that left have their connections closed.
    ///
    /// `sourceHashes` are the rows' new source hashes; a family in `hashedWhenSaved` is stored as the file has it and
    /// has no row yet, and its hash is that of the bytes stored. `storedRows` are the rows as read in this transaction.
    mutating func replaceDirectory(
        with new: Directory, sourceHashes: [FamilyID: String?] = [:], hashedWhenSaved: Set<FamilyID> = [],
        storedRows: [FamilyID: Stored.Family]? = nil
    ) throws {
        let old = directory
        let rows = try storedRows ?? store.familyRows()
        let encoder = Stored.Family.entryEncoder()
        var kept: Set<FamilyID> = []
        for (id, family) in Stored.Family.rows(of: new.file) {
            kept.insert(id)
            if hashedWhenSaved.contains(id) {
                let entry = try encoder.encode(family)
                try store.saveFamily(entry: entry, id: id, sourceHash: Stored.Family.hash(of: entry))
                continue
            }
            let hash = sourceHashes[id] ?? rows[id]?.sourceHash
            if rows[id]?.family != family || rows[id]?.sourceHash != hash {
                try store.saveFamily(entry: try encoder.encode(family), id: id, sourceHash: hash)
            }
        }
        for id in rows.keys where !kept.contains(id) { try store.deleteFamily(id) }
        directory = new
        directoryChanged = true

        for member in old.members.values where old.isChild(member, on: now) {
            guard let family = member.familyID, new.members[member.id]?.familyID != family else { continue }
            for stored in try store.pendingQuestions(child: member.id) {
                try resolveWithDefault(
                    stored, reason: .childRemoved, family: family, parents: old.parents(of: family))
            }
        }
        // Children grouped once: asking the directory per family scans every member each time, which made the first
        // start with 100,000 families (every parent "added") quadratic.
        var childrenByFamily: [FamilyID: [Directory.Member]] = [:]
        for member in new.members.values where new.isChild(member, on: now) {
            if let family = member.familyID { childrenByFamily[family, default: []].append(member) }
        }
        for (family, parents) in new.parentsByFamily {
            let added = Set(parents).subtracting(old.parents(of: family))
            guard !added.isEmpty else { continue }
            for child in childrenByFamily[family] ?? [] {
                for stored in try store.pendingQuestions(child: child.id) {
                    for parent in added.sorted() { try publish(.questionPending(stored.asked), to: parent) }
                }
            }
        }
        for member in new.members.values where new.isChild(member, on: now) {
            if try store.settings(of: member.id) == nil {
                try store.saveSettings(defaultSettings(for: member), of: member.id)
            }
        }
        for (id, device) in old.devices where new.devices[id]?.publicKey != device.publicKey {
            disconnectedDevices.append(id)
        }
    }

    // MARK: admin

    mutating func admin(_ request: AdminRequest, configuration: () throws -> Directory) throws -> AdminResult {
        func require<T>(_ value: T?, _ name: String) throws -> T {
            guard let value else { throw ErrorReply(.invalidRequest, "\(request.command.rawValue) needs \(name)") }
            return value
        }
        var file = directory.file
        let summary: String
        switch request.command {
        case .show:
            return AdminResult(
                summary: "\(directory.members.count) members, \(directory.devices.count) devices", directory: file,
                revokedKeys: try store.revokedKeys().sorted())
        case .reload:
            return AdminResult(summary: try applyConfiguration(try configuration()))
        case .enroll:
            let memberID = try require(request.member, "member")
            let deviceID = try require(request.device, "device")
            let key = try require(request.publicKey, "publicKey")
            try store.unrevokeKey(key)
            try Self.editMember(memberID, in: &file) { member in
                member.devices = (member.devices ?? []) + [FamilyFile.Device(id: deviceID, publicKey: key)]
            }
            summary = "enrolled \(deviceID) for \(memberID)"
        case .revoke:
            let deviceID = try require(request.device, "device")
            guard let device = directory.devices[deviceID] else { throw ErrorReply(.notFound, "no device \(deviceID)") }
            try store.revokeKey(device.publicKey, device: deviceID, member: device.memberID, at: now)
            try Self.editMember(device.memberID, in: &file) { member in member.devices?.removeAll { $0.id == deviceID }
            }
            summary = "revoked \(deviceID) of \(device.memberID)"
        case .addMember:
            var entry = try require(request.entry, "entry")
            if entry.devices?.contains(where: { $0.publicKey == nil }) == true {
                throw ErrorReply(.invalidRequest, "a device added by an admin command carries its publicKey inline")
            }
            entry.devices = entry.devices ?? []
            if let familyID = request.family {
                guard let f = file.families.firstIndex(where: { $0.id == familyID }) else {
                    throw ErrorReply(.notFound, "no family \(familyID)")
                }
                file.families[f].members.append(entry)
            } else {
                file.unaffiliated = (file.unaffiliated ?? []) + [entry]
            }
            summary = "added \(entry.id) to \(request.family ?? "no family")"
        case .removeMember:
            let memberID = try require(request.member, "member")
            guard directory.members[memberID] != nil else { throw ErrorReply(.notFound, "no member \(memberID)") }
            for f in file.families.indices { file.families[f].members.removeAll { $0.id == memberID } }
            file.unaffiliated?.removeAll { $0.id == memberID }
            summary = "removed \(memberID)"
        case .setRole:
            let memberID = try require(request.member, "member")
            let role = try require(request.role, "role")
            guard MemberRole(name: role) != nil else {
                throw ErrorReply(.invalidRequest, "'\(role)' is not one of organizer, guardian, adult, child")
            }
            try Self.editMember(memberID, in: &file) { member in member.role = role }
            summary = "\(memberID) is now \(role)"
        case .setAgeAssurance:
            let memberID = try require(request.member, "member")
            let name = try require(request.ageAssurance, "ageAssurance")
            summary = try Self.setAgeAssurance(name, of: memberID, in: &file)
        }
        let new: Directory
        do {
            new = try Directory(
                file: file, keysDirectory: "/", source: Self.storedSource, rules: policy.regions,
                maxFamilyMembers: policy.maxFamilyMembers)
        } catch let error as ConfigurationError {
            throw ErrorReply(
                .invalidRequest, "\(error.key.isEmpty ? "" : error.key + ": ")\(error.reason); nothing was changed")
        }
        try replaceDirectory(with: new)
        logger.notice("admin: \(summary)")
        return AdminResult(summary: summary)
    }

    /// `setAgeAssurance`: one of Apple's case names, or `derived` for none on record (the range says who declared).
    private static func setAgeAssurance(_ name: String, of id: MemberID, in file: inout FamilyFile) throws -> String {
        let derived = name == AdminRequest.derivedAssurance
        guard derived || AgeDeclaration(name: name) != nil else {
            let known = AgeDeclaration.allCases.map(\.name) + [AdminRequest.derivedAssurance]
            throw ErrorReply(.invalidRequest, "'\(name)' is not one of \(known.joined(separator: ", "))")
        }
        try editMember(id, in: &file) { member in member.ageAssurance = derived ? nil : name }
        return "\(id)'s age: " + (derived ? "who declared it" : name)
    }

    private static func editMember(
        _ id: MemberID, in file: inout FamilyFile, _ edit: (inout FamilyFile.Member) -> Void
    ) throws {
        for f in file.families.indices {
            if let m = file.families[f].members.firstIndex(where: { $0.id == id }) {
                return edit(&file.families[f].members[m])
            }
        }
        if let m = file.unaffiliated?.firstIndex(where: { $0.id == id }) { return edit(&file.unaffiliated![m]) }
        throw ErrorReply(.notFound, "no member \(id)")
    }

    /// A stable hash of a family's entry (keys resolved), to tell whether the file changed it since it was last applied.
    static func hash(_ family: FamilyFile.Family, encoder: JSONEncoder = Stored.Family.entryEncoder()) -> String {
        Stored.Family.hash(of: (try? encoder.encode(family)) ?? Data())
    }
}
