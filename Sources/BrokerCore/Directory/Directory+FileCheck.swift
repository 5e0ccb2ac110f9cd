import Foundation
import HearthCore
import HearthProtocol

extension Directory {
    /// The rules of one family file's entries, each throwing a `ConfigurationError` that names the key it breaks.
    struct FileCheck {
        let source: String
        let keysDirectory: String
        static let idRule = "must be 1-64 characters of A-Z a-z 0-9 . _ -"
        static let utc = TimeZone(identifier: "UTC")!

        func fail(_ key: String, _ reason: String) -> ConfigurationError {
            ConfigurationError(source: source, key: key, reason: reason)
        }

        /// A member's key in the file: `families[F].members[M]` or `unaffiliated[M]`. Written only for an error.
        static func memberPath(_ family: Int?, _ member: Int) -> String {
            family.map { "families[\($0)].members[\(member)]" } ?? "unaffiliated[\(member)]"
        }

        /// Whether `key` is a CURVE public key in Z85: 40 characters of its alphabet (HearthProtocol's check), each
        /// group of five a 32-bit value (`#####` is not). What ZeroMQ's `Z85.isValidKey` checks, without linking it.
        static func isCurveKey(_ key: String) -> Bool {
            guard BrokerRedirect.isZ85Key(key) else { return false }
            let alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
            let digits = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($1, UInt64($0)) })
            let characters = Array(key)
            return stride(from: 0, to: characters.count, by: 5).allSatisfy { start in
                let group = characters[start..<start + 5].reduce(UInt64(0)) { $0 * 85 + digits[$1, default: 0] }
                return group <= UInt64(UInt32.max)
            }
        }

        /// Every member's place in the file (indexes only: a copy of each member, its path and a closure to write it
        /// back made such a list a third of the members' own size in a large file), and how many devices they have.
        /// Checks the families' ids and sizes on the way.
        func entries(of file: FamilyFile, maxFamilyMembers: Int) throws -> ([(family: Int?, index: Int)], Int) {
            var entries: [(family: Int?, index: Int)] = []
            var deviceCount = 0
            var familyIDs: Set<FamilyID> = []
            for (f, family) in file.families.enumerated() {
                guard Identifier.isValid(family.id) else { throw fail("families[\(f)].id", Self.idRule) }
                guard familyIDs.insert(family.id).inserted else {
                    throw fail("families[\(f)].id", "family id '\(family.id)' is used twice")
                }
                guard family.members.count <= maxFamilyMembers else {
                    let found = family.members.count
                    throw fail(
                        "families[\(f)].members", "a family has at most \(maxFamilyMembers) members, found \(found)")
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
            return (entries, deviceCount)
        }

        /// The member an entry describes, each of its fields after the id checked.
        func member(_ entry: FamilyFile.Member, familyID: FamilyID?, path: String) throws -> Member {
            guard let role = MemberRole(name: entry.role) else {
                throw fail("\(path).role", "'\(entry.role)' is not one of organizer, guardian, adult, child")
            }
            if familyID == nil, role != .child, role != .adult {
                throw fail("\(path).role", "a member in no family can only be a child or an adult")
            }
            var birthDate: BirthDate?
            if let text = entry.birthDate {
                guard let date = BirthDate(text) else {
                    throw fail("\(path).birthDate", "'\(text)' is not a real YYYY-MM-DD date after 1900")
                }
                birthDate = date
            }
            if let region = entry.region, !RegionRules.isValidRegionCode(region) {
                throw fail("\(path).region", "'\(region)' is not an ISO 3166 region code such as US or US-AL")
            }
            var timeZone = Self.utc
            if let name = entry.timeZone {
                guard let zone = TimeZone(identifier: name) else {
                    throw fail("\(path).timeZone", "'\(name)' is not an IANA time zone such as Europe/Paris")
                }
                timeZone = zone
            }
            if let name = entry.name, name.utf8.count > 200 { throw fail("\(path).name", "at most 200 bytes") }
            var assurance: AgeDeclaration?
            if let name = entry.ageAssurance {
                guard let declaration = AgeDeclaration(name: name) else {
                    let known = AgeDeclaration.allCases.map(\.name).joined(separator: ", ")
                    throw fail("\(path).ageAssurance", "'\(name)' is not one of \(known)")
                }
                assurance = declaration
            }
            return Member(
                id: entry.id, familyID: familyID, name: entry.name ?? entry.id, role: role, birthDate: birthDate,
                region: entry.region?.uppercased(), timeZone: timeZone, initialLimits: entry.communicationLimits,
                ageAssurance: assurance)
        }

        /// A device's public key, inline or read from its key file, checked to be a CURVE key.
        func key(of device: FamilyFile.Device, path: String) throws -> String {
            let key: String
            if let inline = device.publicKey {
                key = inline
            } else if let keyFile = device.keyFile {
                let url = URL(
                    fileURLWithPath: keyFile, relativeTo: URL(fileURLWithPath: keysDirectory, isDirectory: true))
                guard let text = try? String(contentsOf: url, encoding: .utf8) else {
                    throw fail("\(path).keyFile", "cannot read \(url.path)")
                }
                key = text.trimmingCharacters(in: .whitespacesAndNewlines)
            } else {
                throw fail(path, "needs publicKey or keyFile")
            }
            guard Self.isCurveKey(key) else {
                throw fail("\(path).publicKey", "not a 40-character Z85 CURVE public key")
            }
            return key
        }
    }
}
