import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import HearthService
import PermissionKit
import Testing

/// Family Sharing and Communication Limits rules through the real daemons and the real `hearthctl`: revocation and
/// enrollment at runtime, approve in person, revoking an approval, expiry, a removed child.
@Suite("Family rules across real daemons", .serialized, .tags(.fleet))
struct FamilyRulesIntegrationTests {
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                .guardian("bob", devices: ["bob-phone"]),
                .child("emma", devices: ["emma-tablet", "emma-phone"]),
            ])
    ])

    static func question(_ handle: String, expires: Date? = nil) -> PermissionQuestion<CommunicationTopic> {
        var topic = CommunicationTopic(personInformation: [
            PersonInformation(handle: CommunicationHandle(value: handle, kind: .custom))
        ])
        topic.actions = [.message]
        return PermissionQuestion(topic: topic, expirationDate: expires)
    }

    /// Runs the real hearthctl (`stdin`, if any, a line on its standard input); returns its exit status and output.
    @discardableResult
    static func hearthctl(
        _ arguments: [String], stdin: String? = nil, fleet: Fleet
    ) async throws -> (status: Int32, output: String) {
        try await ExecutableRun.run("hearthctl", arguments, input: stdin.map { $0 + "\n" })
    }

    static func admin(_ arguments: [String], fleet: Fleet) async throws -> String {
        let (status, output) = try await hearthctl(
            ["admin"] + arguments + ["--broker-state", fleet.directory + "/broker"], fleet: fleet)
        #expect(status == 0, "hearthctl admin \(arguments): \(output)")
        return output
    }

    @Test func aRevokedDeviceIsCutOffAndAnEnrolledOneGetsIn() async throws {
        try await Fleet.with(Self.family) { fleet in
            let tablet = fleet.app("com.example.chat", on: "emma-tablet")
            let phone = fleet.app("com.example.chat", on: "emma-phone")
            let tabletResponses = ResponseCollector(tablet)
            let phoneResponses = ResponseCollector(phone)
            let alice = try await fleet.parent(on: "alice-phone")

            let output = try await Self.admin(["revoke", "emma-phone"], fleet: fleet)
            #expect(output.contains("revoked emma-phone"))
            try await fleet.eventually("the revoked phone is unlinked", timeout: .seconds(20)) {
                try await fleet.status(of: "emma-phone").linked == false
            }
            // The honest devices reconnect on their own.
            try await fleet.waitUntilLinked("emma-tablet")
            try await fleet.waitUntilLinked("alice-phone")

            let ask = Self.question("newfriend")
            try await tablet.ask(ask)
            _ = try await alice.waitForQuestion(ask.id)
            _ = try await alice.approve(ask.id)
            try await fleet.eventually("the tablet gets the response") {
                tabletResponses.responses(for: ask.id).count == 1
            }
            // The phone stays cut off: nothing more reaches it.
            try await Task.sleep(for: .seconds(2))
            #expect(phoneResponses.responses.isEmpty)
            #expect(try await fleet.status(of: "emma-phone").linked == false)

            // A new device of emma's, enrolled at runtime, links and catches up.
            let key = fleet.directory + "/keys/emma-laptop"
            #expect(try await Self.hearthctl(["keygen", key], fleet: fleet).status == 0)
            _ = try await Self.admin(["enroll", "emma", "emma-laptop", "--key-file", key + ".pub"], fleet: fleet)
            let socket = fleet.directory + "/run/emma-laptop.sock"
            let laptop = try SpawnedProcess.launch(
                try BinaryLocator.directory() + "/child-device",
                arguments: [
                    "--key-file", key + ".key", "--state", fleet.directory + "/devices/emma-laptop", "--socket",
                    socket, "--broker-ready", fleet.readyFile,
                ])
            defer { laptop.stopBlocking() }
            let laptopApp = CommunicationLimits(socketPath: socket, bundleID: "com.example.chat", timeout: .seconds(2))
            try await fleet.eventually("the enrolled laptop knows the approved handle", timeout: .seconds(20)) {
                await laptopApp.isKnownHandle(CommunicationHandle(value: "newfriend", kind: .custom))
            }
            await laptopApp.close()
            tabletResponses.cancel()
            phoneResponses.cancel()
            await tablet.close()
            await phone.close()
            await alice.close()
        }
    }

    @Test func aParentApprovesInPersonAndLaterRevokesTheApproval() async throws {
        try await Fleet.with(Self.family) { fleet in
            let tablet = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = ResponseCollector(tablet)
            let aliceSocket = fleet.socket(of: "alice-phone")
            let tabletSocket = fleet.socket(of: "emma-tablet")
            try await fleet.waitUntilLinked("alice-phone")
            let set = try await Self.hearthctl(
                ["parent", "passcode", "emma", "--socket", aliceSocket], stdin: "2468", fleet: fleet)
            #expect(set.status == 0, "\(set.output)")
            #expect(!set.output.contains("2468"))

            let ask = Self.question("cousin")
            try await tablet.ask(ask)
            let wrong = try await Self.hearthctl(
                ["child", "approve-in-person", ask.id.uuidString, "--socket", tabletSocket], stdin: "0000", fleet: fleet
            )
            #expect(wrong.status != 0)
            #expect(wrong.output.contains("wrongPasscode"), "\(wrong.output)")
            let right = try await Self.hearthctl(
                ["child", "approve-in-person", ask.id.uuidString, "--socket", tabletSocket], stdin: "2468", fleet: fleet
            )
            #expect(right.status == 0, "\(right.output)")
            try await fleet.eventually("the app gets the approval") { responses.responses(for: ask.id).count == 1 }
            #expect(responses.responses(for: ask.id).first?.reason == .approvedInPerson)
            let cousin = CommunicationHandle(value: "cousin", kind: .custom)
            try await fleet.eventually("the handle is known") { await tablet.isKnownHandle(cousin) }

            let revoke = try await Self.hearthctl(
                ["parent", "revoke", "emma", "custom:cousin", "--socket", aliceSocket], fleet: fleet)
            #expect(revoke.status == 0 && revoke.output.contains("custom:cousin"), "\(revoke.output)")
            try await fleet.eventually("the handle is no longer known") { await tablet.isKnownHandle(cousin) == false }

            // Limits through hearthctl: everyone makes any handle known; the listing shows the change. (No downtime
            // schedule, so the test does not depend on the hour: a 10-year-old's default downtime is 21:00-07:00.)
            let limits = try await Self.hearthctl(
                [
                    "parent", "limits", "emma", "--screen-time", "everyone", "--schedule", "none", "--socket",
                    aliceSocket,
                ], fleet: fleet)
            #expect(limits.status == 0 && limits.output.contains("during Screen Time: everyone"), "\(limits.output)")
            #expect(await tablet.isKnownHandle(CommunicationHandle(value: "anyone", kind: .custom)))
            responses.cancel()
            await tablet.close()
        }
    }

    @Test func anExpiredQuestionReachesTheAppAsItsDefaultResponse() async throws {
        try await Fleet.with(Self.family) { fleet in
            let tablet = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = ResponseCollector(tablet)
            let bob = try await fleet.parent(on: "bob-phone")
            let ask = Self.question("latecomer", expires: Date().addingTimeInterval(3))
            try await tablet.ask(ask)
            _ = try await bob.waitForQuestion(ask.id)
            try await fleet.eventually("the app learns the question expired", timeout: .seconds(20)) {
                responses.responses(for: ask.id).count == 1
            }
            let response = try #require(responses.responses(for: ask.id).first)
            #expect(response.reason == .expired)
            #expect(response.choice.answer == .denial)
            try await fleet.eventually("the parent's list is cleared") { try await bob.pending().isEmpty }
            await #expect(throws: (any Error).self) { try await bob.approve(ask.id) }
            responses.cancel()
            await tablet.close()
            await bob.close()
        }
    }

    @Test func removingAChildAnswersItsPendingQuestionsWithTheDefault() async throws {
        try await Fleet.with(Self.family) { fleet in
            let tablet = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = ResponseCollector(tablet)
            let alice = try await fleet.parent(on: "alice-phone")
            let ask = Self.question("someone")
            try await tablet.ask(ask)
            _ = try await alice.waitForQuestion(ask.id)
            _ = try await Self.admin(["remove-member", "emma"], fleet: fleet)
            try await fleet.eventually("the parent's list is cleared") { try await alice.pending().isEmpty }
            let shown = try await Self.admin(["show"], fleet: fleet)
            #expect(!shown.contains("emma-tablet"))
            responses.cancel()
            await tablet.close()
            await alice.close()
        }
    }
}
