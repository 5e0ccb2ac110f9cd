import FamilyBroker
import HearthTransport

extension FleetSpec {
    /// Generates a key pair per device in `keysDirectory` (`<device>.key`, mode 0600, and `<device>.pub`) and returns
    /// the family file that enrols them by public key.
    public func familyFile(keysDirectory: String) throws -> FamilyFile {
        func entry(_ member: Member) throws -> FamilyFile.Member {
            let devices = try member.devices.map { device in
                FamilyFile.Device(id: device, publicKey: try KeyFiles.generate(at: keysDirectory + "/" + device).publicKey)
            }
            return FamilyFile.Member(
                id: member.id, name: member.id, role: member.role.name, birthDate: member.birthDate, region: member.region,
                communicationLimits: member.communicationLimits, devices: devices)
        }
        return FamilyFile(
            families: try families.map { family in .init(id: family.id, name: family.id, members: try family.members.map(entry)) },
            unaffiliated: try unaffiliated.map(entry))
    }
}
