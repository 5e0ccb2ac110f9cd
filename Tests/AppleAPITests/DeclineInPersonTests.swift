import Foundation
import HearthClient
import HearthCore
import HearthFleet
import HearthProtocol
import PermissionKit
import Testing

/// Apple's `PermissionResult.approveInPerson(approved: false)`: a parent at the child's device declines the app's
/// significant change with the Screen Time passcode, through the three daemons as real processes. The app's flow
/// learns it, the response reaches the app on each of the child's devices, both parents are told and the family's
/// history records it; a wrong passcode declines nothing.
@Suite("A parent declines in person on the child's device, against real daemons", .serialized, .tags(.fleet))
struct DeclineInPersonTests {
    static let bundleID = "com.example.chat"
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .init("alice", role: .organizer, birthDate: "1985-01-01", devices: ["alice-phone"]),
                .init("bob", role: .guardian, birthDate: "1983-01-01", devices: ["bob-laptop"]),
                .init("emma", role: .child, birthDate: "2014-01-01", devices: ["emma-tablet", "emma-phone"]),
            ])
    ])

    @Test func theRightPasscodeDeclinesAndTheAppTheChildsDevicesAndTheParentsLearnIt() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = ChatApp(center: AskCenter(fleet.app(Self.bundleID, on: "emma-tablet")))
            let onPhone = ChatApp(center: AskCenter(fleet.app(Self.bundleID, on: "emma-phone")))
            let alice = try await fleet.parent(on: "alice-phone")
            try await alice.setPasscode("2468", of: "emma")
            let atTablet = try await ChildConsole(socketPath: fleet.socket(of: "emma-tablet"))

            let description = "This update adds a public feed."
            let flow = Task { try await app.askForUpdate(description, flow: .approveInPerson) }
            let pending = try await ShippingSDKAppTests.pendingUpdate(description, at: alice, in: fleet)
            let phoneAnswer = Task { await onPhone.updateResponse(to: pending) }

            // A wrong passcode declines nothing: the question still waits for a parent.
            do {
                try await atTablet.declineInPerson(pending, passcode: "1111")
                Issue.record("a wrong passcode declined the question")
            } catch let error as ErrorReply {
                #expect(error.code == .wrongPasscode, "\(error)")
            }
            #expect(try await alice.pending().contains { $0.question.id == pending })

            let resolution = try await atTablet.declineInPerson(pending, passcode: "2468")
            #expect(resolution.reason == .declinedInPerson && resolution.choice.answer == .denial)
            let (question, result) = try await flow.value
            #expect(question.id == pending && result == .approveInPerson(approved: false))
            #expect(ChatApp.describe(result) == "approveInPerson(approved: false)")
            let elsewhere = try #require(await phoneAnswer.value)
            #expect(elsewhere.choice.answer == .denial && elsewhere.reason == .declinedInPerson)

            let recorded = try await alice.history(of: "emma").filter { $0.questionID == pending }
            #expect(recorded.map(\.kind) == [.declinedInPerson])
            #expect(recorded.first?.choice?.answer == .denial && recorded.first?.deviceID == "emma-tablet")
            #expect(recorded.first?.summary.hasPrefix("declined in person on emma-tablet for emma") == true)
            try await Self.expectNotices(of: pending, on: ["alice-phone", "bob-laptop"], in: fleet)

            await atTablet.close()
            await alice.close()
            await app.center.communicationLimits.close()
            await onPhone.center.communicationLimits.close()
        }
    }

    /// Each parent's device records the decline as an answer, in words that say it was declined in person.
    static func expectNotices(of question: UUID, on devices: [String], in fleet: Fleet) async throws {
        for device in devices {
            let socket = fleet.socket(of: device)
            @Sendable func notices() async throws -> [ParentNotification] {
                try await ParentConsole.recentNotifications(socketPath: socket).filter {
                    $0.questionID == question && $0.kind == .questionAnswered
                }
            }
            try await fleet.eventually("\(device) is told of the decline") { try await !notices().isEmpty }
            let text = try await notices().first?.text ?? ""
            #expect(text.hasPrefix("declined in person on emma's device"), "\(device): \(text)")
        }
    }
}
