import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import PermissionKit
import Testing

/// Words both ways through the three daemons as real processes: an app's note reaches the parents with its question,
/// a parent's message reaches the app with the response, and text breaking the rules is refused by name everywhere.
@Suite("Words both ways across real daemons", .serialized, .tags(.fleet))
struct WordsAcrossDaemonsTests {
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                .guardian("bob", devices: ["bob-phone"]),
                .child("emma", devices: ["emma-tablet"]),
            ])
    ])

    static func question(_ handle: String, note: String? = nil) -> PermissionQuestion<CommunicationTopic> {
        let question = PermissionQuestion(handle: CommunicationHandle(value: handle, kind: .custom))
        question.note = note
        return question
    }

    @Test func aNoteGoesUpAndAMessageComesBack() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = AppResponses(app)
            let bob = try await fleet.parent(on: "bob-phone")
            let note = "Sam sits next to me in class 📚\nwe do the project together"

            let first = Self.question("sam", note: note)
            try await app.ask(first)
            let pending = try await bob.waitForQuestion(first.id)
            #expect(pending.question.note == note)
            let listed = try await hearthctl(["parent", "list", "--socket", fleet.socket(of: "alice-phone")])
            #expect(listed.output.contains("note: Sam sits next to me in class 📚"), "\(listed.output)")

            // A console refuses a bad message before sending; hearthctl too; nothing was answered.
            do {
                try await bob.approve(first.id, message: "fine\tbut")
                Issue.record("a message with a tab was sent")
            } catch let error as ClientError {
                #expect(error.field == "answer.message" && error.message.contains("U+0009"), "\(error)")
            }
            let refused = try await hearthctl([
                "parent", "approve", String(first.id.uuidString.prefix(8)), "--message",
                String(repeating: "x", count: 281), "--socket", fleet.socket(of: "alice-phone"),
            ])
            #expect(refused.status != 0 && refused.output.contains("281 characters"), "\(refused)")
            // The broker refuses it too, for a client that does not check (a raw socket to parent-device).
            let raw = try LocalClient(
                endpoint: LocalEndpoints.ipc(fleet.socket(of: "bob-phone")), peer: "parent-device")
            try await raw.start()
            do {
                _ = try await raw.request(.answer(questionID: first.id, choiceID: "approve", message: "\u{1B}[2J"))
                Issue.record("the broker took a message with an escape")
            } catch let error as ErrorReply {
                #expect(error.code == .invalidText && error.message.hasPrefix("answer.message: "), "\(error)")
            }
            await raw.close()
            #expect(try await bob.pending().contains { $0.question.id == first.id }, "still waiting")

            // hearthctl declines with a message; the app receives it with the response.
            let declined = try await hearthctl([
                "parent", "decline", String(first.id.uuidString.prefix(8)), "--message", "Let's meet his parents first",
                "--socket", fleet.socket(of: "alice-phone"),
            ])
            #expect(declined.status == 0, "\(declined.output)")
            try await fleet.eventually("the app gets the response") { !responses.responses(for: first.id).isEmpty }
            let response = try #require(responses.responses(for: first.id).first)
            #expect(response.choice == .decline)
            #expect(response.answeredBy == "alice")
            #expect(response.message == "Let's meet his parents first")
            #expect(response.question.note == note)

            // A console's approval carries its message too.
            let second = Self.question("lee")
            try await app.ask(second)
            _ = try await bob.waitForQuestion(second.id)
            try await bob.approve(second.id, message: "ok 👍")
            try await fleet.eventually("the app gets the approval") { !responses.responses(for: second.id).isEmpty }
            #expect(responses.responses(for: second.id).first?.message == "ok 👍")
            responses.cancel()
            await bob.close()
            await app.close()
        }
    }

    @Test func aBadNoteIsRefusedByNameAndNothingIsAsked() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            do {
                try await app.ask(Self.question("sam", note: String(repeating: "🐉", count: 300)))
                Issue.record("PermissionKit sent a 300-character note")
            } catch let error as AskFailure {
                guard case .invalidText(let field, let reason) = error else {
                    Issue.record("\(error)")
                    return
                }
                #expect(field == "question.note" && reason.contains("bytes"), "\(reason)")
            }
            // child-device refuses it for an app that does not check, before storing it in its outbox.
            let raw = try LocalClient(
                endpoint: LocalEndpoints.ipc(fleet.socket(of: "emma-tablet")), peer: "child-device")
            try await raw.start()
            _ = try await raw.request(.appHello(bundleID: "com.example.raw"))
            let bad = Question(Self.question("mallory", note: "ring\u{07}ring"))
            do {
                _ = try await raw.request(.ask(appBundleID: "com.example.raw", question: bad))
                Issue.record("child-device took a note with a bell")
            } catch let error as ErrorReply {
                #expect(error.code == .invalidText && error.message.hasPrefix("question.note: "), "\(error)")
                #expect(error.message.contains("U+0007"), "\(error)")
            }
            await raw.close()
            // Nothing reached the parents: a good question asked after it is the only one waiting.
            let good = Self.question("lee", note: "from the chess club")
            try await app.ask(good)
            let alice = try await fleet.parent(on: "alice-phone")
            _ = try await alice.waitForQuestion(good.id)
            #expect(try await alice.pending().map(\.question.id) == [good.id])
            await alice.close()
            await app.close()
        }
    }
}
