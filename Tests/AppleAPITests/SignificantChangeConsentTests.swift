import Foundation
import HearthClient
import HearthCore
import HearthFleet
import PermissionKit
import Testing

/// A significant change asked by a child whose Communication Limits are off, through the three daemons. The limits
/// govern whom she talks to; the change is her parents' call (in Texas the law requires their consent, and Declared Age
/// Range tells the app so), so the question reaches them and their answer comes back, while a communication question
/// from the same child still gets its default response at once. A child in no family has nobody to ask: every flow
/// says it sent nothing, and the app gets the default response.
@Suite("Significant changes reach the parents with Communication Limits off, against real daemons", .serialized)
struct SignificantChangeConsentTests {
    static let bundleID = "com.example.chat"
    static let family = FleetSpec(families: [
        .init(
            "lonestar",
            members: [
                .init("alice", role: .organizer, birthDate: "1985-01-01", region: "US-TX", devices: ["alice-phone"]),
                .init(
                    "emma", role: .child, birthDate: "2014-01-01", region: "US-TX", communicationLimits: false,
                    devices: ["emma-tablet"]),
            ])
    ])

    @Test func aParentIsAskedAndAnswersWhateverTheLimits() async throws {
        try await Fleet.with(Self.family) { fleet in
            let limits = fleet.app(Self.bundleID, on: "emma-tablet")
            let app = ChatApp(center: AskCenter(limits))
            let alice = try await fleet.parent(on: "alice-phone")

            for flow in [PermissionFlow.askToApprove, .acknowledgmentAlert] {
                let (update, result) = try await app.askForUpdate("This update adds video calls.", flow: flow)
                #expect(result == .askToApprove(didSend: true), "\(flow)")
                let answer = Task { await app.updateResponse(to: update.id) }
                _ = try await alice.waitForQuestion(update.id)
                try await alice.approve(update.id)
                let response = try #require(await answer.value)
                #expect(response.choice.answer == .approval && response.reason == .parentAnswered, "\(flow)")
            }

            // In person, too: the passcode typed on her tablet approves it.
            try await alice.setPasscode("2468", of: "emma")
            let atTablet = try await ChildConsole(socketPath: fleet.socket(of: "emma-tablet"))
            let flow = Task { try await app.askForUpdate("This update adds a public feed.", flow: .approveInPerson) }
            let pending = try await ShippingSDKAppTests.pendingUpdate(
                "This update adds a public feed.", at: alice, in: fleet)
            try await atTablet.approveInPerson(pending, passcode: "2468")
            #expect(try await flow.value.1 == .approveInPerson(approved: true))

            // A communication question is still the limits' business: Hearth's ask gets the default at once.
            let chat = PermissionQuestion<CommunicationTopic>(handle: CommunicationHandle(value: "sam", kind: .custom))
            let defaulted = Task { () -> Resolution.Reason? in
                for await response in limits.responses(for: CommunicationTopic.self)
                where response.question.id == chat.id {
                    return response.reason
                }
                return nil
            }
            try await limits.ask(chat)
            #expect(await defaulted.value == .defaultLimitsOff)
            #expect(try await !alice.pending().contains { $0.question.id == chat.id })
            await atTablet.close()
            await alice.close()
            await limits.close()
        }
    }

    @Test func aChildInNoFamilyHasNobodyToAskAndEveryFlowSaysSo() async throws {
        let spec = FleetSpec(
            families: [.init("lonestar", members: [.organizer("alice", devices: ["alice-phone"])])],
            unaffiliated: [.child("zoe", devices: ["zoe-tablet"])])
        try await Fleet.with(spec) { fleet in
            let app = ChatApp(center: AskCenter(fleet.app(Self.bundleID, on: "zoe-tablet")))
            for flow in ChatApp.flows {
                let (update, result) = try await app.askForUpdate("This update adds video calls.", flow: flow)
                #expect(result == .askToApprove(didSend: false), "\(flow)")
                let response = try #require(await app.updateResponse(to: update.id))
                #expect(response.reason == .defaultNoFamily && response.choice.answer == .denial, "\(flow)")
            }
            await app.center.communicationLimits.close()
        }
    }
}
