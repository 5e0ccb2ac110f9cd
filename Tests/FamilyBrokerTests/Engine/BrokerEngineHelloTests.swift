import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// `hello`, `ping` and the device authentication every command goes through.
@Suite("BrokerEngine hello and authentication")
struct BrokerEngineHelloTests {
    @Test(arguments: [
        ("alice", "a1", "f1" as FamilyID?, MemberRole.organizer),
        ("bob", "b1", "f1", .guardian),
        ("carol", "c1", "f1", .adult),
        ("emma", "e1", "f1", .child),
        ("tim", "t1", "f1", .child),
        ("zed", "z1", "f2", .organizer),
        ("yuri", "y1", "f2", .child),
        ("nora", "n1", nil, .child),
    ])
    func helloIsWelcomedWithTheDevicesIdentity(
        member: MemberID, device: DeviceID, family: FamilyID?, role: MemberRole
    ) async throws {
        try await BrokerHarness.with { broker in
            let outcome = try await broker.send(.hello(minVersion: 1, maxVersion: 1), from: member)
            #expect(
                outcome.reply
                    == .welcome(
                        version: Wire.version, familyID: family, memberID: member, deviceID: device, role: role, head: 0
                    ))
            #expect(outcome.events.isEmpty)
        }
    }

    @Test(arguments: StorageBackend.all)
    func helloCarriesTheMembersHead(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            _ = try await broker.ask(question(["h1"]))
            _ = try await broker.ask(question(["h2"]))
            let outcome = try await broker.send(.hello(minVersion: 1, maxVersion: 9), from: "alice")
            #expect(
                outcome.reply
                    == .welcome(
                        version: Wire.highestVersion, familyID: "f1", memberID: "alice", deviceID: "a1",
                        role: .organizer,
                        head: 2))
            #expect(try await broker.send(.ping, from: "emma").reply == .pong(head: 2))
            #expect(try await broker.send(.ping, from: "carol").reply == .pong(head: 0))
        }
    }

    @Test(arguments: [
        (UInt8(1), UInt8(1), UInt8(1)), (1, 2, 2), (0, 255, 4), (2, 3, 3), (2, 2, 2), (3, 4, 4), (4, 9, 4),
    ])
    func helloIsWelcomedWithTheHighestCommonVersion(
        minVersion: UInt8, maxVersion: UInt8, version: UInt8
    )
        async throws
    {
        try await BrokerHarness.with { broker in
            let outcome = try await broker.send(.hello(minVersion: minVersion, maxVersion: maxVersion), from: "emma")
            guard case .welcome(let welcomed, _, _, _, _, _) = outcome.reply else {
                Issue.record("hello(\(minVersion), \(maxVersion)) got \(outcome.reply)")
                return
            }
            #expect(welcomed == version)
        }
    }

    @Test(arguments: [(UInt8(5), UInt8(6)), (0, 0), (2, 1)])
    func helloWithNoCommonVersionIsRefused(minVersion: UInt8, maxVersion: UInt8) async throws {
        try await BrokerHarness.with { broker in
            let outcome = try await broker.send(.hello(minVersion: minVersion, maxVersion: maxVersion), from: "emma")
            #expect(outcome.reply.errorCode == .unsupportedVersion, "\(outcome.reply)")
        }
    }

    static let commands: [Message] = [
        .hello(minVersion: 1, maxVersion: 1),
        .ping,
        .sync(after: 0, limit: 10),
        .knownHandles([handle("h1")]),
        .ask(appBundleID: "com.example.chat", question: question(["h1"])),
        .answer(questionID: UUID(), choiceID: "approve"),
    ]

    @Test(arguments: commands)
    func aCommandWithoutAnEnrolledDeviceIsNotAuthorized(_ message: Message) async throws {
        try await BrokerHarness.with { broker in
            let before = try await broker.fingerprint()
            for device in [nil, "x9", "", "alice", "A1"] as [DeviceID?] {
                let outcome = try await broker.sendFrame(MessageCodec.encode(message, requestID: 42), device: device)
                #expect(outcome.reply.errorCode == .notAuthorized, "device \(device ?? "nil") → \(outcome.reply)")
                #expect(outcome.requestID == 42)
                #expect(outcome.events.isEmpty)
            }
            #expect(try await broker.fingerprint() == before)
            #expect(try await broker.questionCount() == 0)
            #expect(try await broker.storage.storedHeads().isEmpty)
        }
    }

    @Test(arguments: StorageBackend.all)
    func anUnknownDeviceAskingStoresNothingEvenInABatchWithGoodCommands(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let stranger = question(["h1"])
            let (replies, events) = try await broker.batch([
                (nil, MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: stranger), requestID: 1)),
                (
                    "e1",
                    MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: question(["h2"])), requestID: 2)
                ),
                (
                    "ghost",
                    MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: question(["h3"])), requestID: 3)
                ),
            ])
            #expect(replies[0].errorCode == .notAuthorized)
            #expect(replies[1].accepted != nil)
            #expect(replies[2].errorCode == .notAuthorized)
            #expect(events.count == 3)
            #expect(try await broker.questionCount() == 1)
            #expect(try await broker.storedQuestion(stranger.id) == nil)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aDeviceRemovedFromTheDirectoryIsNoLongerAuthorized(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            #expect(try await broker.send(.ping, from: "emma").reply == .pong(head: 0))
            var file = try TestFamily.file()
            file.families[0].members[3].devices = []
            broker.engine.directory.replace(
                try Directory(file: file, keysDirectory: "/nonexistent", source: "reloaded.yaml"))
            #expect(try await broker.send(.ping, from: "emma").reply.errorCode == .notAuthorized)
            #expect(try await broker.send(.ping, from: "alice").reply == .pong(head: 0))
        }
    }
}
