import BrokerCore
import Foundation
import HearthCore
import HearthProtocol

/// The families the broker fuzzer's engine knows. Its ids are those of the protocol's golden fixtures ("kid-1",
/// "mum", "mum.phone", "kid-1.tablet"), so the seed corpus names real members and devices.
enum FuzzFamily {
    /// Who sends each command: an input's device byte picks one (modulo the count); nil is an unenrolled connection.
    static let devices: [DeviceID?] = [
        "kid-1.tablet", "mum.phone", "dad.phone", "gran.laptop", "teen.phone", "zed.phone", "yuri.tablet",
        "nora.tablet", nil,
    ]

    /// A device's enrolled key: the directory needs a distinct, valid Z85 CURVE public key per device, and nothing
    /// here speaks CURVE, so a fixed one per device (its place in `devices`) does, without ZeroMQ's key generator.
    static func key(of device: DeviceID) -> String {
        let place = devices.firstIndex(of: device) ?? devices.count
        return String(repeating: "0", count: 38) + (place < 10 ? "0" : "") + String(place)
    }

    static func directory() throws -> Directory {
        func member(
            _ id: MemberID, _ role: String, device: DeviceID, birthDate: String? = nil
        ) throws -> FamilyFile.Member {
            FamilyFile.Member(
                id: id, role: role, birthDate: birthDate, region: "US",
                devices: [FamilyFile.Device(id: device, publicKey: key(of: device))])
        }
        let file = FamilyFile(
            families: [
                FamilyFile.Family(
                    id: "the-smiths",
                    members: [
                        try member("mum", "organizer", device: "mum.phone", birthDate: "1985-03-04"),
                        try member("dad", "guardian", device: "dad.phone"),
                        try member("gran", "adult", device: "gran.laptop", birthDate: "1950-01-01"),
                        try member("kid-1", "child", device: "kid-1.tablet", birthDate: "2016-06-07"),
                        try member("teen", "child", device: "teen.phone", birthDate: "2011-02-03"),
                    ]),
                FamilyFile.Family(
                    id: "f2",
                    members: [
                        try member("zed", "organizer", device: "zed.phone"),
                        try member("yuri", "child", device: "yuri.tablet"),
                    ]),
            ],
            unaffiliated: [try member("nora", "child", device: "nora.tablet")])
        return try Directory(file: file, keysDirectory: "/nonexistent", source: "fuzz-family")
    }
}
