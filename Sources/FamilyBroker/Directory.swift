import Foundation
import HearthCore
import ZeroMQ

/// Who the broker knows, resolved from the family file: looked up on every command and every CURVE handshake.
public struct Directory: Sendable {
    public struct Member: Sendable, Equatable {
        public var id: MemberID
        public var familyID: FamilyID?
        public var name: String
        public var role: MemberRole
        public var birthDate: String?
        public var region: String?
        public var limitsEnabled: Bool
    }

    public struct Device: Sendable, Equatable {
        public var id: DeviceID
        public var memberID: MemberID
        public var publicKey: String
    }

    public private(set) var members: [MemberID: Member] = [:]
    public private(set) var devices: [DeviceID: Device] = [:]
    public private(set) var deviceByKey: [String: DeviceID] = [:]
    public private(set) var parentsByFamily: [FamilyID: [MemberID]] = [:]

    public init() {}

    /// Resolves a family file; `keysDirectory` anchors relative `keyFile` paths. Throws on the first invalid entry.
    public init(file: FamilyFile, keysDirectory: String, source: String) throws {
        func fail(_ key: String, _ reason: String) -> ConfigurationError {
            ConfigurationError(source: source, key: key, reason: reason)
        }
        var entries: [(FamilyID?, String, FamilyFile.Member)] = []
        for (f, family) in file.families.enumerated() {
            guard Identifier.isValid(family.id) else { throw fail("families[\(f)].id", "must be 1-64 characters of A-Z a-z 0-9 . _ -") }
            for (m, member) in family.members.enumerated() { entries.append((family.id, "families[\(f)].members[\(m)]", member)) }
        }
        for (m, member) in (file.unaffiliated ?? []).enumerated() { entries.append((nil, "unaffiliated[\(m)]", member)) }

        var organizerCount: [FamilyID: Int] = [:]
        for (familyID, path, entry) in entries {
            guard Identifier.isValid(entry.id) else { throw fail("\(path).id", "must be 1-64 characters of A-Z a-z 0-9 . _ -") }
            guard members[entry.id] == nil else { throw fail("\(path).id", "member id '\(entry.id)' is used twice") }
            guard let role = MemberRole(name: entry.role) else {
                throw fail("\(path).role", "'\(entry.role)' is not one of organizer, guardian, adult, child")
            }
            if familyID == nil, role != .child, role != .adult {
                throw fail("\(path).role", "a member in no family can only be a child or an adult")
            }
            if let birthDate = entry.birthDate, !Self.isValidDate(birthDate) {
                throw fail("\(path).birthDate", "'\(birthDate)' is not a YYYY-MM-DD date")
            }
            members[entry.id] = Member(
                id: entry.id, familyID: familyID, name: entry.name ?? entry.id, role: role, birthDate: entry.birthDate,
                region: entry.region, limitsEnabled: entry.communicationLimits ?? true)
            if let familyID, role.isParent { parentsByFamily[familyID, default: []].append(entry.id) }
            if let familyID, role == .organizer { organizerCount[familyID, default: 0] += 1 }

            for (d, device) in (entry.devices ?? []).enumerated() {
                let dpath = "\(path).devices[\(d)]"
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
            }
        }
        for (f, family) in file.families.enumerated() where organizerCount[family.id, default: 0] != 1 {
            throw fail("families[\(f)].members", "a family has exactly one organizer, found \(organizerCount[family.id, default: 0])")
        }
    }

    /// The member a device belongs to.
    public func member(ofDevice id: DeviceID) -> Member? {
        devices[id].flatMap { members[$0.memberID] }
    }

    /// The parents and guardians of a family.
    public func parents(of family: FamilyID?) -> [MemberID] {
        family.flatMap { parentsByFamily[$0] } ?? []
    }

    private static func isValidDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else {
            return false
        }
        return y > 1900 && (1...12).contains(m) && (1...31).contains(d)
    }
}
