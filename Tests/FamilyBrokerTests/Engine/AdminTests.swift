import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing
import ZeroMQ

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Membership and enrollment changes while the broker runs, through `BrokerEngine.admin` and `applyConfiguration`, and
/// who is a child by birth date and region.
@Suite("Admin commands and membership")
struct AdminTests {
    func admin(
        _ broker: BrokerHarness, _ request: AdminRequest, file: FamilyFile? = nil
    ) async throws -> Result<AdminResult, ErrorReply> {
        let configured = try file.map { try Directory(file: $0, keysDirectory: "/", source: "family.yaml") }
        return await broker.engine.admin(request) {
            guard let configured else {
                throw ConfigurationError(source: "family.yaml", key: "", reason: "no file in this test")
            }
            return configured
        }
    }

    @Test(arguments: StorageBackend.all)
    func enrollAndRevokeADeviceAndTheRevokedKeyStaysOut(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            _ = try await broker.engine.applyConfiguration(broker.directory)
            let key = try CurveKeyPair.generate().publicKey
            let enrolled = try await admin(broker, AdminRequest(.enroll, member: "emma", device: "e2", publicKey: key))
                .get()
            #expect(enrolled.disconnectedDevices.isEmpty)
            #expect(broker.engine.directory.current.deviceByKey[key] == "e2")
            #expect(
                try await broker.sendFrame(MessageCodec.encode(.ping, requestID: 5), device: "e2").reply
                    == .pong(head: 0))

            let revoked = try await admin(broker, AdminRequest(.revoke, device: "e2")).get()
            #expect(revoked.disconnectedDevices == ["e2"])
            #expect(broker.engine.directory.current.deviceByKey[key] == nil)
            #expect(
                try await broker.sendFrame(MessageCodec.encode(.ping, requestID: 6), device: "e2").reply.errorCode
                    == .notAuthorized)

            // The family file names the revoked key again: it is not enrolled again.
            var file = try TestFamily.file()
            file.families[0].members[3].devices?.append(FamilyFile.Device(id: "e2", publicKey: key))
            _ = try await admin(broker, AdminRequest(.reload), file: file).get()
            #expect(broker.engine.directory.current.deviceByKey[key] == nil)
            let shown = try await admin(broker, AdminRequest(.show)).get()
            #expect(shown.revokedKeys == [key])
            // Only an explicit enroll lets it back in.
            _ = try await admin(broker, AdminRequest(.enroll, member: "emma", device: "e2", publicKey: key)).get()
            #expect(broker.engine.directory.current.deviceByKey[key] == "e2")
        }
    }

    @Test(arguments: StorageBackend.all)
    func removingAChildResolvesItsPendingQuestionsWithTheDefault(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let id = try #require(try await broker.ask(question(["pal"])).reply.accepted).asked.question.id
            let removal = try await admin(broker, AdminRequest(.removeMember, member: "emma")).get()
            #expect(removal.disconnectedDevices == ["e1"])
            let stored = try #require(try await broker.storedQuestion(id))
            #expect(stored.resolution?.reason == .childRemoved)
            #expect(stored.resolution?.choice == .decline)
            #expect(try await broker.answer(id, "approve", from: "alice").reply.errorCode == .notFound)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aNewGuardianReceivesThePendingQuestionsAndAnUndesignatedOneCannotAnswer(_ backend: StorageBackend) async throws
    {
        try await BrokerHarness.with(backend) { broker in
            let id = try #require(try await broker.ask(question(["pal"])).reply.accepted).asked.question.id
            #expect(try await broker.answer(id, "approve", from: "carol").reply.errorCode == .notAuthorized)
            _ = try await admin(broker, AdminRequest(.setRole, member: "carol", role: "guardian")).get()
            let carolsLog = try #require(
                try await broker.send(.sync(after: 0, limit: 100), from: "carol").reply.eventsReply)
            #expect(carolsLog.events.compactMap(\.body.pendingQuestion).map(\.question.id) == [id])
            _ = try await admin(broker, AdminRequest(.setRole, member: "bob", role: "adult")).get()
            #expect(try await broker.answer(id, "approve", from: "bob").reply.errorCode == .notAuthorized)
            #expect(try await broker.answer(id, "approve", from: "carol").reply.answerResolution?.answeredBy == "carol")
        }
    }

    @Test(arguments: StorageBackend.all)
    func invalidChangesAreRefusedNamingTheRuleAndChangeNothing(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let before = try await broker.fingerprint()
            func refused(
                _ request: AdminRequest, _ code: ErrorCode, _ text: String,
                sourceLocation: SourceLocation = #_sourceLocation
            ) async throws {
                guard case .failure(let error) = try await admin(broker, request) else {
                    Issue.record("accepted \(request)", sourceLocation: sourceLocation)
                    return
                }
                #expect(error.code == code, sourceLocation: sourceLocation)
                #expect(error.message.contains(text), "\(error.message)", sourceLocation: sourceLocation)
            }
            let newcomer = { (id: String) in
                FamilyFile.Member(id: id, role: "child", birthDate: "2015-01-01", devices: [])
            }
            // f1 has 5 members; a sixth fits, a seventh does not.
            _ = try await admin(broker, AdminRequest(.addMember, family: "f1", entry: newcomer("kid6"))).get()
            try await refused(
                AdminRequest(.addMember, family: "f1", entry: newcomer("kid7")), .invalidRequest, "at most 6 members")
            try await refused(
                AdminRequest(.addMember, family: "nope", entry: newcomer("kid8")), .notFound, "no family nope")
            try await refused(
                AdminRequest(.addMember, family: "f2", entry: newcomer("emma")), .invalidRequest, "used twice")
            try await refused(
                AdminRequest(.setRole, member: "alice", role: "adult"), .invalidRequest, "exactly one organizer")
            try await refused(AdminRequest(.setRole, member: "bob", role: "king"), .invalidRequest, "not one of")
            try await refused(
                AdminRequest(.enroll, member: "emma", device: "e3", publicKey: "short"), .invalidRequest, "Z85")
            try await refused(AdminRequest(.revoke, device: "zz"), .notFound, "no device zz")
            try await refused(AdminRequest(.enroll, member: "emma"), .invalidRequest, "needs device")
            _ = try await admin(broker, AdminRequest(.removeMember, member: "kid6")).get()
            #expect(try await broker.fingerprint().logs == before.logs)
        }
    }

    /// How an existing member's age was established changes by admin command (an ID checked after she joined), and
    /// goes back to who declared it with `derived`; a name that is not one of Apple's cases changes nothing.
    @Test(arguments: StorageBackend.all)
    func aMembersAgeAssuranceIsSetAndClearedByName(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let set = try await admin(
                broker, AdminRequest(.setAgeAssurance, member: "bob", ageAssurance: "governmentIDChecked")
            ).get()
            #expect(set.summary == "bob's age: governmentIDChecked")
            #expect(broker.engine.directory.current.members["bob"]?.ageAssurance == .governmentIDChecked)
            guard
                case .failure(let wrong) = try await admin(
                    broker, AdminRequest(.setAgeAssurance, member: "bob", ageAssurance: "passportChecked"))
            else {
                Issue.record("passportChecked was accepted")
                return
            }
            #expect(wrong.code == .invalidRequest && wrong.message.contains("confirmed, derived"), "\(wrong)")
            #expect(broker.engine.directory.current.members["bob"]?.ageAssurance == .governmentIDChecked)
            guard
                case .failure(let nobody) = try await admin(
                    broker, AdminRequest(.setAgeAssurance, member: "nobody", ageAssurance: "confirmed"))
            else {
                Issue.record("an unknown member was accepted")
                return
            }
            #expect(nobody.code == .notFound)
            _ = try await admin(broker, AdminRequest(.setAgeAssurance, member: "bob", ageAssurance: "derived")).get()
            #expect(broker.engine.directory.current.members["bob"]?.ageAssurance == nil)
        }
    }

    @Test func adminChangesSurviveARestartAndTheFileWinsOnlyForEntriesItChanged() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let file = try TestFamily.file()
        // TestFamily makes fresh keys on each call: one file, used for both runs.
        let first = try await BrokerHarness(
            temp: temp, directory: try Directory(file: file, keysDirectory: "/", source: "family.yaml"))
        _ = try await first.engine.applyConfiguration(first.directory)
        _ = try await admin(first, AdminRequest(.setRole, member: "carol", role: "guardian")).get()
        _ = try await admin(first, AdminRequest(.setRole, member: "yuri", role: "adult")).get()

        // A restart with the same file: the admin edits stay.
        let stored = try #require(try await first.store.read { db in try BrokerStore.storedFile(in: db) })
        let second = try await BrokerHarness(
            temp: temp, directory: try Directory(file: stored, keysDirectory: "/", source: "db"))
        _ = try await second.engine.applyConfiguration(
            try Directory(file: file, keysDirectory: "/", source: "family.yaml"))
        #expect(second.engine.directory.current.members["carol"]?.role == .guardian)
        #expect(second.engine.directory.current.members["yuri"]?.role == .adult)

        // The file changes family f2: f2 is taken from the file, f1 keeps its admin edit.
        var edited = file
        edited.families[1].name = "Two, renamed"
        _ = try await second.engine.applyConfiguration(
            try Directory(file: edited, keysDirectory: "/", source: "family.yaml"))
        #expect(second.engine.directory.current.members["carol"]?.role == .guardian)
        #expect(second.engine.directory.current.members["yuri"]?.role == .child)
    }

    @Test func childnessFollowsBirthDateAndRegionOnTheDay() async throws {
        // The test clock's day is 2025-06-15 (UTC).
        func member(
            _ id: String, _ role: String, _ birth: String, _ region: String, zone: String? = nil
        ) throws -> FamilyFile.Member {
            FamilyFile.Member(
                id: id, role: role, birthDate: birth, region: region, timeZone: zone,
                devices: [FamilyFile.Device(id: id + "-d", publicKey: try CurveKeyPair.generate().publicKey)])
        }
        let file = FamilyFile(families: [
            FamilyFile.Family(
                id: "f",
                members: [
                    try member("mum", "organizer", "1980-01-01", "US"),
                    try member("sam", "adult", "2005-01-01", "US-MS"),  // 20: a child where majority is 21
                    try member("ann", "adult", "2005-01-01", "US"),  // 20: an adult
                    try member("kit", "child", "2007-06-16", "US"),  // 18 tomorrow
                    // Already tomorrow there.
                    try member("kai", "child", "2007-06-16", "US", zone: "Pacific/Kiritimati"),
                ])
        ])
        let directory = try Directory(file: file, keysDirectory: "/", source: "family.yaml")
        let broker = try await BrokerHarness(directory: directory)
        defer { broker.temp.remove() }
        func role(_ id: String) async throws -> MemberRole? {
            let frame = MessageCodec.encode(.hello(minVersion: 1, maxVersion: 1), requestID: 1)
            guard case .welcome(_, _, _, _, let role, _) = try await broker.sendFrame(frame, device: id + "-d").reply
            else { return nil }
            return role
        }
        #expect(try await role("sam") == .child)
        #expect(try await role("ann") == .adult)
        #expect(try await role("kit") == .child)
        #expect(try await role("kai") == .adult)
        let ask = MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: question(["x"])), requestID: 2)
        #expect(try await broker.sendFrame(ask, device: "ann-d").reply.errorCode == .notAvailable)
        #expect(try await broker.sendFrame(ask, device: "sam-d").reply.accepted != nil)
        // Kit comes of age: no longer asks, and the question is an adult's business.
        broker.clock.advance(by: 86_400)
        #expect(try await role("kit") == .adult)
        let later = MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: question(["y"])), requestID: 3)
        #expect(try await broker.sendFrame(later, device: "kit-d").reply.errorCode == .notAvailable)
    }
}
