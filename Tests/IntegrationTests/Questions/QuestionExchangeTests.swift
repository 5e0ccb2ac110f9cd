import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import PermissionKit
import Testing

/// The three daemons as separate processes over loopback TCP exchange questions and answers end to end.
@Suite("Question exchange across real daemons", .serialized, .tags(.fleet))
struct QuestionExchangeTests {
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                .guardian("bob", devices: ["bob-phone"]),
                .child("emma", devices: ["emma-tablet", "emma-phone"]),
            ])
    ])

    static func question(_ handle: String) -> PermissionQuestion<CommunicationTopic> {
        var topic = CommunicationTopic(personInformation: [
            PersonInformation(handle: CommunicationHandle(value: handle, kind: .custom))
        ])
        topic.actions = [.message]
        return PermissionQuestion(communicationTopic: topic)
    }

    @Test func askApproveDeclineReachEveryDevice() async throws {
        try await Fleet.with(Self.family) { fleet in
            let tablet = fleet.app("com.example.chat", on: "emma-tablet")
            let phone = fleet.app("com.example.chat", on: "emma-phone")
            let otherApp = fleet.app("com.example.other", on: "emma-tablet")
            let tabletResponses = ResponseCollector(tablet)
            let phoneResponses = ResponseCollector(phone)
            let otherResponses = ResponseCollector(otherApp)
            let alice = try await fleet.parent(on: "alice-phone")
            let bob = try await fleet.parent(on: "bob-phone")

            // ask -> approve
            let friend = CommunicationHandle(value: "dragonslayer42", kind: .custom)
            let knownBefore = await tablet.knownHandles(in: [friend])
            #expect(knownBefore.isEmpty)
            let ask = Self.question(friend.value)
            try await tablet.ask(ask)
            let atAlice = try await alice.waitForQuestion(ask.id)
            _ = try await bob.waitForQuestion(ask.id)
            #expect(atAlice.childMemberID == "emma")
            #expect(atAlice.appBundleID == "com.example.chat")
            #expect(atAlice.question.handles == [friend])
            let resolution = try await alice.approve(ask.id)
            #expect(resolution.answeredBy == "alice")

            try await fleet.eventually("both of emma's devices get the approval") {
                tabletResponses.responses(for: ask.id).count == 1 && phoneResponses.responses(for: ask.id).count == 1
            }
            let response = try #require(tabletResponses.responses(for: ask.id).first)
            #expect(response.choice.answer == .approval)
            #expect(response.answeredBy == "alice")
            #expect(response.reason == .parentAnswered)
            #expect(otherResponses.responses.isEmpty, "another app never sees this app's responses")
            try await fleet.eventually("the handle is known on both devices") {
                let onTablet = await tablet.isKnownHandle(friend)
                let onPhone = await phone.isKnownHandle(friend)
                return onTablet && onPhone
            }

            // A second parent cannot answer again, and learned who did.
            await #expect(throws: ErrorReply.self) { try await bob.decline(ask.id) }
            do {
                try await bob.decline(ask.id)
            } catch let error as ErrorReply {
                #expect(error.code == .alreadyAnswered)
                #expect(error.message.contains("alice"))
            }
            try await fleet.eventually("bob's pending list drops the answered question") {
                try await bob.pending().allSatisfy { $0.question.id != ask.id }
            }

            // ask -> decline
            let stranger = Self.question("stranger99")
            try await tablet.ask(stranger)
            _ = try await bob.waitForQuestion(stranger.id)
            try await bob.decline(stranger.id)
            try await fleet.eventually("the decline reaches the app") {
                tabletResponses.responses(for: stranger.id).count == 1
            }
            #expect(tabletResponses.responses(for: stranger.id).first?.choice.answer == .denial)
            let strangerKnown = await tablet.isKnownHandle(CommunicationHandle(value: "stranger99", kind: .custom))
            #expect(!strangerKnown)

            // Exactly once per app instance.
            try await Task.sleep(for: .milliseconds(500))
            #expect(tabletResponses.responses.count == 2)
            #expect(phoneResponses.responses.count == 2)

            for c in [tabletResponses, phoneResponses, otherResponses] { c.cancel() }
            for app in [tablet, phone, otherApp] { await app.close() }
            await alice.close()
            await bob.close()
        }
    }

    @Test func everythingSurvivesRestartingEachDaemon() async throws {
        try await Fleet.with(Self.family) { fleet in
            let friend = CommunicationHandle(value: "pal1", kind: .custom)
            let first = Self.question(friend.value)
            do {
                let app = fleet.app("com.example.chat", on: "emma-tablet")
                try await app.ask(first)
                await app.close()
            }
            let alice = try await fleet.parent(on: "alice-phone")
            _ = try await alice.waitForQuestion(first.id)
            try await alice.approve(first.id)
            await alice.close()

            // The app was not running when the parent answered: its response waits in child-device's inbox...
            try await fleet.restart("emma-tablet")
            // ...and across a broker restart and a parent-device restart.
            try await fleet.restartBroker()
            try await fleet.restart("alice-phone")
            try await fleet.waitUntilLinked("emma-tablet")

            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = ResponseCollector(app)
            try await fleet.eventually("the waiting response reaches the app after restarts") {
                responses.responses(for: first.id).count == 1
            }
            let friendKnown = await app.isKnownHandle(friend)
            #expect(friendKnown)

            // Asked while parent-device is down: the question waits for it.
            try await fleet.daemon("alice-phone").stop()
            let second = Self.question("pal2")
            try await app.ask(second)
            try await fleet.daemon("alice-phone").start()
            try await fleet.waitUntilLinked("alice-phone")
            let console = try await fleet.parent(on: "alice-phone")
            _ = try await console.waitForQuestion(second.id)

            // Bob's phone is off while Alice answers: when it is back it learns the question is settled.
            let bobsPhone = try fleet.daemon("bob-phone")
            let fourth = Self.question("pal4")
            try await app.ask(fourth)
            let bob = try await fleet.parent(on: "bob-phone")
            _ = try await bob.waitForQuestion(fourth.id)
            await bobsPhone.stop()
            try await console.approve(fourth.id)
            try await bobsPhone.start()
            try await fleet.waitUntilLinked("bob-phone")
            try await fleet.eventually("bob's phone learns it was answered while it was off") {
                try await bob.pending().allSatisfy { $0.question.id != fourth.id }
            }
            await bob.close()

            // Asked while the broker is down: the outbox sends it once the broker is back.
            await fleet.currentBroker.stop()
            let third = Self.question("pal3")
            try await app.ask(third)
            try await fleet.startBrokerAgain()
            _ = try await console.waitForQuestion(third.id, timeout: .seconds(20))
            try await console.decline(third.id)
            try await console.approve(second.id)
            try await fleet.eventually("both answers reach the app") {
                responses.responses(for: second.id).count == 1 && responses.responses(for: third.id).count == 1
            }
            #expect(responses.responses(for: first.id).count == 1, "no response is delivered twice")
            responses.cancel()
            await app.close()
            await console.close()
        }
    }
}
