import Foundation
import HearthCore
import HearthFleet
import PermissionKit
import Testing

/// Apple's `communicationLimitsNotEnabled` and `contactSyncNotSetup` through the three daemons: Apple's spellings
/// refuse a communication question when the child's Communication Limits are off or the child-device has not synced
/// with its broker yet, with nothing stored or sent; Hearth's own `ask(_:)` keeps the talk's default response.
@Suite("Apple's ask refusals, against real daemons", .serialized, .tags(.fleet))
struct AskRefusalTests {
    static let bundleID = "com.example.chat"
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .init("alice", role: .organizer, birthDate: "1985-01-01", devices: ["alice-phone"]),
                .init("emma", role: .child, birthDate: "2014-01-01", devices: ["emma-tablet"]),
            ])
    ])

    static func question(_ handle: String) -> PermissionQuestion<CommunicationTopic> {
        let person = CommunicationTopic.PersonInformation(
            handle: CommunicationHandle(value: handle, kind: .custom), nameComponents: nil, avatarImage: nil)
        return PermissionQuestion(communicationTopic: CommunicationTopic(personInformation: [person]))
    }

    /// The case of Apple's `AskError` that `ask` threw, as the app names it; "none" when it did not throw.
    static func refusal(_ ask: () async throws -> Void) async -> String {
        do {
            try await ask()
            return "none"
        } catch {
            return ChatApp.message(for: error)
        }
    }

    /// The deprecated spelling, which Apple keeps behaving as `AskCenter.shared.ask(_:in:)`, called through a
    /// protocol it satisfies so the test compiles without a deprecation warning.
    static func askTheOldWay(
        _ limits: any TalkEraAsking, _ question: PermissionQuestion<CommunicationTopic>
    )
        async throws
    {
        try await limits.ask(question, in: nil)
    }

    @Test func limitsOffRefuseApplesAskWithNothingStoredAndHearthsAskKeepsTheDefaultResponse() async throws {
        try await Fleet.with(Self.family) { fleet in
            let alice = try await fleet.parent(on: "alice-phone")
            var settings = try await alice.limits(of: "emma").settings
            settings.enabled = false
            _ = try await alice.setLimits(settings, of: "emma")
            let history = try await alice.history(of: "emma")
            let limits = fleet.app(Self.bundleID, on: "emma-tablet")
            let center = AskCenter(limits)
            let received = Task {
                var ids: [UUID] = []
                for await response in center.responses(for: CommunicationTopic.self) {
                    ids.append(response.question.id)
                    if response.reason == .defaultLimitsOff { break }
                }
                return ids
            }

            let refused = Self.question("sam")
            #expect(await Self.refusal { try await center.ask(refused, in: nil) } == "communicationLimitsNotEnabled")
            let refusedOldWay = Self.question("kim")
            #expect(
                await Self.refusal { try await Self.askTheOldWay(limits, refusedOldWay) }
                    == "communicationLimitsNotEnabled")

            // Hearth's own spelling keeps the talk's behaviour: the default response at once, nobody asked. Its
            // response comes after any the refused questions would have had (one log): none came.
            let talkEra = Self.question("lee")
            try await limits.ask(talkEra)
            #expect(await received.value == [talkEra.id])
            #expect(try await alice.pending().isEmpty)
            #expect(try await alice.history(of: "emma") == history)
            await alice.close()
            await limits.close()
        }
    }

    @Test func aChildDeviceNeverSyncedWithItsBrokerRefusesApplesAskUntilItHasAndQueuesItWhenOfflineLater() async throws
    {
        let fleet = try Fleet.prepare(Self.family)
        do {
            try await fleet.startBroker()
            try await fleet.cut("emma-tablet")
            try await fleet.daemon("emma-tablet").start()
            try await fleet.daemon("alice-phone").start()
            try await fleet.waitUntilLinked("alice-phone")
            try await fleet.eventually("emma-tablet listens") {
                FileManager.default.fileExists(atPath: fleet.socket(of: "emma-tablet"))
            }
            let center = AskCenter(fleet.app(Self.bundleID, on: "emma-tablet"))
            let refused = Self.question("sam")
            #expect(await Self.refusal { try await center.ask(refused, in: nil) } == "contactSyncNotSetup")

            // Once linked, the same app (same connection) asks; the refused question was never queued.
            try fleet.restore("emma-tablet")
            try await fleet.waitUntilLinked("emma-tablet")
            let asked = Self.question("kim")
            try await center.ask(asked, in: nil)
            let alice = try await fleet.parent(on: "alice-phone")
            _ = try await alice.waitForQuestion(asked.id)
            #expect(try await alice.pending().map(\.question.id) == [asked.id])

            // Synced once, then offline: the limits cannot be read, so the question is queued at once, as before.
            try await fleet.cut("emma-tablet")
            try await fleet.eventually("emma-tablet is unlinked") {
                try await !fleet.status(of: "emma-tablet").linked
            }
            let offline = Self.question("lee")
            let start = ContinuousClock.now
            try await center.ask(offline, in: nil)
            let took = ContinuousClock.now - start
            #expect(took < .seconds(2), "an offline ask took \(took)")
            try fleet.restore("emma-tablet")
            _ = try await alice.waitForQuestion(offline.id, timeout: .seconds(20))
            await alice.close()
            await center.communicationLimits.close()
        } catch {
            await fleet.shutdown()
            throw error
        }
        await fleet.shutdown()
    }
}

/// The 26.0 spelling `CommunicationLimits.ask(_:in:)`, deprecated by Apple in 26.2.
protocol TalkEraAsking: Sendable {
    func ask<Topic: QuestionTopic>(_ question: PermissionQuestion<Topic>, in context: Any?) async throws
}

extension CommunicationLimits: TalkEraAsking {}
