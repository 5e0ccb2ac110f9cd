import FamilyFileYAML
import Foundation
import HearthCore
import HearthProtocol
import HearthService
import Testing
import ZeroMQ

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The family file as the broker resolves it: a bad entry is refused and the error names its key path.
@Suite("Directory and FamilyFile configuration")
struct DirectoryTests {
    private func key() throws -> String { try CurveKeyPair.generate().publicKey }

    private func member(
        _ id: MemberID, _ role: String, device: DeviceID? = nil, publicKey: String? = nil, birthDate: String? = nil
    ) throws
        -> FamilyFile.Member
    {
        let devices = try device.map { [FamilyFile.Device(id: $0, publicKey: try publicKey ?? key())] }
        return FamilyFile.Member(id: id, role: role, birthDate: birthDate, devices: devices)
    }

    /// Expects `file` to be refused with an error naming `key`.
    private func expectRefused(_ file: FamilyFile, key: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try Directory(file: file, keysDirectory: "/nonexistent", source: "family.yaml")
            Issue.record(
                "the directory accepted a bad family file; expected an error at \(key)", sourceLocation: sourceLocation)
        } catch let error as ConfigurationError {
            #expect(error.key == key, "\(error)", sourceLocation: sourceLocation)
            #expect(error.source == "family.yaml", sourceLocation: sourceLocation)
            #expect(!error.reason.isEmpty, sourceLocation: sourceLocation)
            #expect(error.description.contains(key), sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a ConfigurationError, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func theTestFamilyResolves() throws {
        let directory = try TestFamily.directory()
        #expect(directory.members.count == 8)
        #expect(directory.devices.count == 8)
        #expect(directory.member(ofDevice: "e1")?.id == "emma")
        #expect(directory.member(ofDevice: "e1")?.familyID == "f1")
        #expect(directory.member(ofDevice: "n1")?.familyID == nil)
        #expect(directory.members["tim"]?.initialLimits == false)
        #expect(directory.members["emma"]?.initialLimits == nil)
        #expect(directory.members["bob"]?.role == .guardian)
        #expect(Set(directory.parents(of: "f1")) == ["alice", "bob"])
        #expect(directory.parents(of: "f2") == ["zed"])
        #expect(directory.parents(of: nil).isEmpty)
        #expect(directory.member(ofDevice: "zz") == nil)
        for (key, device) in directory.deviceByKey { #expect(directory.devices[device]?.publicKey == key) }
    }

    @Test func rejectsAnUnknownRole() throws {
        let file = FamilyFile(families: [
            FamilyFile.Family(id: "f1", members: [try member("alice", "organizer"), try member("emma", "kid")])
        ])
        expectRefused(file, key: "families[0].members[1].role")
    }

    @Test func aMisspelledOrganizerIsReportedAsABadRoleNotAsAMissingOrganizer() throws {
        let file = FamilyFile(families: [
            FamilyFile.Family(id: "f1", members: [try member("alice", "organiser"), try member("emma", "child")])
        ])
        expectRefused(file, key: "families[0].members[0].role")
    }

    @Test func rejectsAnOrganizerOutsideAFamily() throws {
        let file = FamilyFile(
            families: [], unaffiliated: [try member("nora", "child"), try member("olga", "organizer")])
        expectRefused(file, key: "unaffiliated[1].role")
    }

    @Test func rejectsAMemberIDUsedTwice() throws {
        let twiceInOneFamily = FamilyFile(families: [
            FamilyFile.Family(
                id: "f1",
                members: [try member("alice", "organizer"), try member("emma", "child"), try member("emma", "child")])
        ])
        expectRefused(twiceInOneFamily, key: "families[0].members[2].id")

        let acrossFamilies = FamilyFile(families: [
            FamilyFile.Family(id: "f1", members: [try member("alice", "organizer")]),
            FamilyFile.Family(id: "f2", members: [try member("zed", "organizer"), try member("alice", "child")]),
        ])
        expectRefused(acrossFamilies, key: "families[1].members[1].id")

        let inAFamilyAndUnaffiliated = FamilyFile(
            families: [FamilyFile.Family(id: "f1", members: [try member("alice", "organizer")])],
            unaffiliated: [try member("alice", "child")])
        expectRefused(inAFamilyAndUnaffiliated, key: "unaffiliated[0].id")
    }

    @Test func rejectsAFamilyWithoutExactlyOneOrganizer() throws {
        let none = FamilyFile(families: [
            FamilyFile.Family(id: "f1", members: [try member("bob", "guardian"), try member("emma", "child")])
        ])
        expectRefused(none, key: "families[0].members")

        let two = FamilyFile(families: [
            FamilyFile.Family(id: "f1", members: [try member("alice", "organizer")]),
            FamilyFile.Family(id: "f2", members: [try member("zed", "organizer"), try member("zoe", "Organizer")]),
        ])
        expectRefused(two, key: "families[1].members")

        let empty = FamilyFile(families: [FamilyFile.Family(id: "f1", members: [])])
        expectRefused(empty, key: "families[0].members")
    }

    @Test(arguments: [
        "not-a-key",
        "",
        String(repeating: "a", count: 39),
        String(repeating: "a", count: 41),
        String(repeating: "~", count: 40),
    ])
    func rejectsABadDeviceKey(_ badKey: String) throws {
        let file = FamilyFile(families: [
            FamilyFile.Family(
                id: "f1",
                members: [
                    try member("alice", "organizer", device: "a1"),
                    try member("emma", "child", device: "e1", publicKey: badKey),
                ])
        ])
        expectRefused(file, key: "families[0].members[1].devices[0].publicKey")
    }

    @Test func rejectsTheSameKeyOrDeviceIDEnrolledTwice() throws {
        let shared = try key()
        let sameKey = FamilyFile(families: [
            FamilyFile.Family(
                id: "f1",
                members: [
                    try member("alice", "organizer", device: "a1", publicKey: shared),
                    try member("emma", "child", device: "e1", publicKey: shared),
                ])
        ])
        expectRefused(sameKey, key: "families[0].members[1].devices[0].publicKey")

        let sameDevice = FamilyFile(families: [
            FamilyFile.Family(
                id: "f1",
                members: [try member("alice", "organizer", device: "d1"), try member("emma", "child", device: "d1")])
        ])
        expectRefused(sameDevice, key: "families[0].members[1].devices[0].id")
    }

    @Test func rejectsADeviceWithNoKey() throws {
        let file = FamilyFile(families: [
            FamilyFile.Family(
                id: "f1",
                members: [
                    FamilyFile.Member(id: "alice", role: "organizer", devices: [FamilyFile.Device(id: "a1")])
                ])
        ])
        expectRefused(file, key: "families[0].members[0].devices[0]")
    }

    @Test(arguments: [
        "2014-13-01", "2014-00-10", "2014-02-32", "14-05-06", "2014/05/06", "yesterday", "1850-01-01", "2014-05",
    ])
    func rejectsABadBirthDate(_ birthDate: String) throws {
        let file = FamilyFile(families: [
            FamilyFile.Family(
                id: "f1",
                members: [try member("alice", "organizer"), try member("emma", "child", birthDate: birthDate)])
        ])
        expectRefused(file, key: "families[0].members[1].birthDate")
    }

    @Test func acceptsAGoodBirthDate() throws {
        let file = FamilyFile(families: [
            FamilyFile.Family(
                id: "f1",
                members: [try member("alice", "organizer"), try member("emma", "child", birthDate: "2014-05-06")])
        ])
        let directory = try Directory(file: file, keysDirectory: "/nonexistent", source: "family.yaml")
        #expect(directory.members["emma"]?.birthDate == BirthDate("2014-05-06"))
    }

    @Test func rejectsABadIdentifier() throws {
        expectRefused(
            FamilyFile(families: [FamilyFile.Family(id: "f 1", members: [try member("alice", "organizer")])]),
            key: "families[0].id")
        expectRefused(
            FamilyFile(families: [FamilyFile.Family(id: "f1", members: [try member("alice!", "organizer")])]),
            key: "families[0].members[0].id")
    }

    @Test func parseReadsAFamilyFile() throws {
        let yaml = """
            families:
              - id: f1
                members:
                  - id: alice
                    role: organizer
                  - id: emma
                    role: child
                    communicationLimits: false
            unaffiliated:
              - id: nora
                role: child
            """
        let file = try FamilyFile.parse(yaml, source: "family.yaml")
        #expect(file.families.first?.members.map(\.id) == ["alice", "emma"])
        #expect(file.families.first?.members.last?.communicationLimits == false)
        #expect(file.unaffiliated?.first?.id == "nora")
        #expect(try FamilyFile.parse(try file.yaml(), source: "again") == file)
    }

    @Test func parseNamesAMissingRequiredKey() throws {
        let yaml = """
            families:
              - id: f1
                members:
                  - id: alice
                    role: organizer
                  - id: emma
            """
        let error = try #require(throws: ConfigurationError.self) { try FamilyFile.parse(yaml, source: "family.yaml") }
        #expect(error.source == "family.yaml")
        #expect(error.reason == "required key is missing")
        // The path names every step down to the missing key.
        #expect(error.key.replacingOccurrences(of: ".[", with: "[") == "families[0].members[1].role", "\(error)")
        #expect(error.description.contains(error.key))
        // It should read like Directory's errors (families[0].members[1].role), so one file's errors look alike.
        #expect(error.key == "families[0].members[1].role")
    }

    @Test func parseNamesAMissingTopLevelKey() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try FamilyFile.parse("unaffiliated: []\n", source: "family.yaml")
        }
        #expect(error.key == "families", "\(error)")
        #expect(error.reason == "required key is missing")
    }

    @Test func parseNamesAMistypedKey() throws {
        let yaml = """
            families:
              - id: f1
                members:
                  - id: alice
                    role: organizer
                    communicationLimits: maybe
            """
        let error = try #require(throws: ConfigurationError.self) { try FamilyFile.parse(yaml, source: "family.yaml") }
        #expect(error.key.hasSuffix("communicationLimits"), "\(error)")
    }

    @Test func theResolvedFileHasEveryKeyInlineAndNothingElseChanged() throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-dirtest-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: keys) }
        let fromFile = try key()
        let inline = try key()
        let both = try key()
        try (fromFile + "\n").write(toFile: keys + "/k.pub", atomically: true, encoding: .utf8)
        let file = FamilyFile(
            families: [
                .init(
                    id: "f1", name: "One",
                    members: [
                        .init(
                            id: "alice", name: "Alice", role: "organizer", region: "FR",
                            devices: [.init(id: "a1", publicKey: inline)]),
                        .init(
                            id: "emma", role: "child", birthDate: "2015-06-01",
                            devices: [
                                .init(id: "e1", keyFile: "k.pub"),
                                .init(id: "e2", publicKey: both, keyFile: "k.pub"),
                            ]),
                    ])
            ], unaffiliated: [.init(id: "nora", role: "child", devices: [.init(id: "n1", publicKey: try key())])])
        let directory = try Directory(file: file, keysDirectory: keys, source: "family.yaml")
        var expected = file
        expected.families[0].members[1].devices = [
            .init(id: "e1", publicKey: fromFile), .init(id: "e2", publicKey: both),
        ]
        #expect(directory.file == expected)
        #expect(directory.deviceByKey[fromFile] == "e1")
        #expect(directory.deviceByKey[both] == "e2")
    }

    @Test func aJSONDocumentReadsAsTheSameYAMLDoes() throws {
        let file = FamilyFile(
            families: [
                .init(
                    id: "f1", name: "The \"Ones\" / é",
                    members: [
                        .init(
                            id: "alice", name: "Alice", role: "organizer", birthDate: "1980-02-29", region: "US-AL",
                            timeZone: "America/Chicago",
                            devices: [.init(id: "a1", publicKey: try key())]),
                        .init(
                            id: "emma", role: "child", communicationLimits: false,
                            devices: [.init(id: "e1", keyFile: "keys/e1.pub")]),
                    ])
            ], unaffiliated: [.init(id: "nora", role: "adult")])
        let json = String(decoding: try JSONEncoder().encode(file), as: UTF8.self)
        let parsed = try FamilyFile.parse("\n  " + json, source: "family.yaml")
        #expect(parsed == file)
        // The same file as block-style YAML, which only Yams reads.
        #expect(parsed == (try FamilyFile.parse(try file.yaml(), source: "family.yaml")))
    }

    @Test func flowStyleYAMLThatIsNotJSONStillParses() throws {
        let parsed = try FamilyFile.parse(
            "{families: [{id: f1, members: [{id: alice, role: organizer}]}]}", source: "family.yaml")
        #expect(parsed.families.first?.members.first?.id == "alice")
    }

    @Test func aJSONDocumentsErrorNamesTheKeyAsForYAML() throws {
        let json = #"{"families": [{"id": "f1", "members": [{"id": "alice", "role": "organizer"}, {"id": "emma"}]}]}"#
        let error = try #require(throws: ConfigurationError.self) { try FamilyFile.parse(json, source: "family.yaml") }
        #expect(error.key == "families[0].members[1].role", "\(error)")
        #expect(error.reason == "required key is missing")
    }
}
