import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import ParentKit
import PermissionKit
import Testing

/// Nothing waits forever, through the three daemons as real processes: a question gets its family's lifetime, the
/// parents are reminded once and told when it expires; the child's app withdraws a question and the parents are told;
/// neither can be answered afterwards, and the error says why.
@Suite("Question lifetimes across real daemons", .serialized, .tags(.fleet))
struct LifetimeAcrossDaemonsTests {
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                .guardian("bob", devices: ["bob-phone"]),
                .child("emma", devices: ["emma-tablet"]),
            ], questionLifetime: "2h", questionReminder: "30m")
    ])

    static func question(_ handle: String) -> PermissionQuestion<CommunicationTopic> {
        PermissionQuestion(handle: CommunicationHandle(value: handle, kind: .custom))
    }

    @Test func aQuestionIsRemindedOfThenExpiresAndCannotBeAnswered() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = AppResponses(app)
            let told = NotificationCollector(
                ParentNotifications(socketPath: fleet.socket(of: "alice-phone")).updates(after: 0))
            let bob = try await fleet.parent(on: "bob-phone")

            let q = Self.question("sam")
            try await app.ask(q)
            let pending = try await bob.waitForQuestion(q.id)
            let expiry = try #require(pending.question.expirationDate)
            #expect(abs(expiry.timeIntervalSince(pending.askedAt) - 7200) < 0.01, "the family's 2 h")

            try fleet.advanceClock(by: .seconds(5400 + 5))
            try await fleet.eventually("alice is reminded", timeout: .seconds(10)) {
                told.items.contains { $0.kind == .questionReminder && $0.questionID == q.id }
            }
            let reminder = try #require(told.items.first { $0.kind == .questionReminder })
            #expect(reminder.text.contains("still waiting") && reminder.text.contains("custom:sam"), "\(reminder)")

            try fleet.advanceClock(by: .seconds(1800))
            try await fleet.eventually("alice is told it expired", timeout: .seconds(10)) {
                told.items.contains { $0.kind == .questionExpired && $0.questionID == q.id }
            }
            #expect(told.items.filter { $0.kind == .questionReminder }.count == 1, "reminded once")
            try await fleet.eventually("the app gets the default") { !responses.responses(for: q.id).isEmpty }
            #expect(responses.responses(for: q.id).first?.reason == .expired)
            do {
                try await bob.approve(q.id)
                Issue.record("an expired question was answered")
            } catch let error as ErrorReply {
                #expect(error.code == .expired && error.message.contains("expired unanswered"), "\(error)")
            }
            told.cancel()
            responses.cancel()
            await bob.close()
            await app.close()
        }
    }

    @Test func theAppWithdrawsAndNobodyCanAnswer() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = AppResponses(app)
            let told = NotificationCollector(
                ParentNotifications(socketPath: fleet.socket(of: "bob-phone")).updates(after: 0))
            let alice = try await fleet.parent(on: "alice-phone")

            let q = Self.question("lee")
            try await app.ask(q)
            _ = try await alice.waitForQuestion(q.id)
            try await app.withdraw(q)
            try await app.withdraw(q)  // again: harmless
            try await fleet.eventually("bob is told it was withdrawn") {
                told.items.contains { $0.kind == .questionWithdrawn && $0.questionID == q.id }
            }
            #expect(told.items.first { $0.kind == .questionWithdrawn }?.text.contains("withdrew") == true)
            try await fleet.eventually("alice's list is cleared") {
                (try? await alice.pending().contains { $0.question.id == q.id }) == false
            }
            try await fleet.eventually("the app gets its withdrawn response") {
                !responses.responses(for: q.id).isEmpty
            }
            #expect(responses.responses(for: q.id).first?.reason == .withdrawn)
            do {
                try await alice.decline(q.id)
                Issue.record("a withdrawn question was answered")
            } catch let error as ErrorReply {
                #expect(error.code == .withdrawn && error.message.contains("withdrawn"), "\(error)")
            }
            // Answered first, it cannot be withdrawn: the app learns why.
            let answered = Self.question("kim")
            try await app.ask(answered)
            _ = try await alice.waitForQuestion(answered.id)
            try await alice.approve(answered.id)
            do {
                try await app.withdraw(answered)
                Issue.record("an answered question was withdrawn")
            } catch let error as AskFailure {
                guard case .invalidQuestion(let reason) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(reason.contains("already answered by alice"), "\(reason)")
            }
            told.cancel()
            responses.cancel()
            await alice.close()
            await app.close()
        }
    }
}
