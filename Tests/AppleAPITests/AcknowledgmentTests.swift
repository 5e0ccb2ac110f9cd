import DeclaredAgeRange
import Foundation
import HearthCore
import HearthFleet
import PermissionKit
import Testing

/// Acknowledged significant updates through the three daemons: `showSignificantUpdateAcknowledgment` (both
/// spellings) and PermissionKit's `acknowledgmentAlert` each leave an entry in the family's history that the parents
/// read; the description follows the text rule, and an app gets at most 10 an hour.
@Suite("Acknowledged updates in the family's history, against real daemons", .serialized)
struct AcknowledgmentTests {
    static let landmarks = "com.example.landmarks"
    static let chat = "com.example.chat"
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .init("alice", role: .organizer, birthDate: "1985-01-01", region: "US-TX", devices: ["alice-phone"]),
                .init(
                    "emma", role: .child, birthDate: "2014-01-01", region: "US-TX",
                    devices: ["emma-tablet", "emma-phone"]),
            ])
    ])

    @Test func acknowledgmentsAreRecordedForTheParentsAndLimited() async throws {
        try await Fleet.with(Self.family) { fleet in
            let service = fleet.ageRange(Self.landmarks, on: "emma-tablet")
            let app = LandmarksApp(service: service)
            let chat = ChatApp(center: AskCenter(fleet.app(Self.chat, on: "emma-tablet")))
            let alice = try await fleet.parent(on: "alice-phone")

            // Both of Apple's spellings, then the alert flow of a significant-change question.
            let feed = "Adds a public feed.\nPosts are visible to friends."
            try await app.acknowledge(feed, action: SignificantUpdateAction(service: service))
            let (question, result) = try await chat.askForUpdate("Adds video calls.", flow: .acknowledgmentAlert)
            #expect(result == .askToApprove(didSend: true))
            _ = try await alice.waitForQuestion(question.id)
            // The parent's answer reaches the app on each of the child's devices, the one that asked and the other.
            let phone = ChatApp(center: AskCenter(fleet.app(Self.chat, on: "emma-phone")))
            let onTablet = Task { await chat.updateResponse(to: question.id) }
            let onPhone = Task { await phone.updateResponse(to: question.id) }
            try await alice.approve(question.id)
            #expect(await onTablet.value?.choice.answer == .approval)
            #expect(await onPhone.value?.choice.answer == .approval)
            await phone.center.communicationLimits.close()

            let recorded = try await alice.history(of: "emma").filter { $0.kind == .updateAcknowledged }
            #expect(recorded.map(\.appBundleID) == [Self.landmarks, Self.landmarks, Self.chat])
            #expect(recorded.allSatisfy { $0.actor == "emma" && $0.deviceID == "emma-tablet" })
            #expect(recorded.first?.message == feed)
            #expect(recorded.last?.message == "Adds video calls.")
            let summary = "emma acknowledged a significant update of \(Self.chat) — \"Adds video calls.\""
            #expect(recorded.last?.summary == summary)

            // App-controlled text follows the rule: a right-to-left override is refused, and nothing is kept.
            do {
                try await service.showSignificantUpdateAcknowledgment(in: nil, updateDescription: "evil\u{202E}txt")
                Issue.record("a description with a bidirectional override was acknowledged")
            } catch { #expect(LandmarksApp.message(for: error) == "invalidRequest") }
            do {
                try await service.showSignificantUpdateAcknowledgment(in: nil, updateDescription: "")
                Issue.record("an empty description was acknowledged")
            } catch { #expect(LandmarksApp.message(for: error) == "invalidRequest") }

            // Ten an hour per app: the eleventh is refused, and another app's are not counted with them.
            for index in 3...10 {
                try await service.showSignificantUpdateAcknowledgment(in: nil, updateDescription: "Update \(index)")
            }
            do {
                try await service.showSignificantUpdateAcknowledgment(in: nil, updateDescription: "Update 11")
                Issue.record("an eleventh acknowledgment within the hour was recorded")
            } catch { #expect(LandmarksApp.message(for: error) == "notAvailable") }
            let all = try await alice.history(of: "emma").filter { $0.kind == .updateAcknowledged }
            #expect(all.filter { $0.appBundleID == Self.landmarks }.count == 10)
            #expect(all.filter { $0.appBundleID == Self.chat }.count == 1)
            await alice.close()
            await service.close()
            await chat.center.communicationLimits.close()
        }
    }

    /// Texas requires adults to acknowledge a significant change themselves (Apple's
    /// `significantAppChangeRequiresAdultNotification`, which alice's app is told): on her parent-device both spellings
    /// succeed; an adult's acknowledgment is her own business and lands in no child's history.
    @Test func anAdultAcknowledgesOnHerOwnDevice() async throws {
        try await Fleet.with(Self.family) { fleet in
            let service = fleet.ageRange(Self.landmarks, on: "alice-phone")
            let app = LandmarksApp(service: service)
            #expect(try await app.regulatoryNeeds().features.contains(.significantAppChangeRequiresAdultNotification))
            try await app.acknowledge("Adds a public feed.", action: SignificantUpdateAction(service: service))
            let alice = try await fleet.parent(on: "alice-phone")
            #expect(try await alice.history(of: "emma").filter { $0.kind == .updateAcknowledged }.isEmpty)
            await alice.close()
            await service.close()
        }
    }

    /// An adult is told (Apple's `significantAppChangeRequiresAdultNotification`): each parent's device records a
    /// notice of the child's acknowledgment, with the app and its description, beside the history entry.
    @Test func eachParentIsNotifiedOfAnAcknowledgment() async throws {
        var family = Self.family
        family.families[0].members.append(
            .init("bob", role: .guardian, birthDate: "1983-01-01", region: "US-TX", devices: ["bob-laptop"]))
        try await Fleet.with(family) { fleet in
            let service = fleet.ageRange(Self.landmarks, on: "emma-phone")
            let app = LandmarksApp(service: service)
            try await app.acknowledge("Adds a public feed.", action: SignificantUpdateAction(service: service))
            for parent in ["alice-phone", "bob-laptop"] {
                let socket = fleet.socket(of: parent)
                @Sendable func notices() async throws -> [ParentNotification] {
                    try await ParentConsole.recentNotifications(socketPath: socket).filter {
                        $0.kind == .updateAcknowledged
                    }
                }
                try await fleet.eventually("\(parent) is told of the acknowledgment") { try await notices().count == 2 }
                let notices = try await notices()
                #expect(notices.allSatisfy { $0.childMemberID == "emma" && $0.appBundleID == Self.landmarks })
                #expect(notices.first?.text.contains("emma acknowledged a significant update") == true)
                #expect(notices.first?.text.contains("Adds a public feed.") == true, "\(notices)")
            }
            await service.close()
        }
    }
}
