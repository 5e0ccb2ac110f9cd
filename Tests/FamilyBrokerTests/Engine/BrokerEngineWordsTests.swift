import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Words both ways: an app's note travels with its question to the parents; a parent's message travels with the
/// answer to the child; text that breaks the `ShortText` rules is refused by name and stores nothing.
@Suite("BrokerEngine words")
struct BrokerEngineWordsTests {
    @Test(arguments: StorageBackend.all)
    func theNoteReachesTheParentsAndTheMessageReachesTheChild(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            var q = question(["sam"])
            q.note = "Sam is in my football team ⚽\nplease?"
            let ask = try await broker.ask(q)
            #expect(ask.reply.accepted?.asked.question.note == q.note)
            for member in ["emma", "alice", "bob"] {
                #expect(ask.events.of(member).first?.body.pendingQuestion?.question.note == q.note, "\(member)")
            }
            #expect(try await broker.storedQuestion(q.id)?.asked.question.note == q.note)

            let answer = try await broker.send(
                .answer(questionID: q.id, choiceID: "decline", message: "Not before we meet his parents 🙂"),
                from: "alice")
            let resolution = try #require(answer.reply.answerResolution, "\(answer.reply)")
            #expect(resolution.message == "Not before we meet his parents 🙂")
            for member in ["emma", "alice", "bob"] {
                #expect(answer.events.of(member).first?.body.resolved?.resolution == resolution, "\(member)")
            }
            #expect(try await broker.storedQuestion(q.id)?.resolution?.message == resolution.message)
            // The log a device syncs carries both texts.
            let logs = try await broker.logs()
            let synced = try #require(logs["emma"]?.events.compactMap { $0.body.resolved }.first)
            #expect(synced.asked.question.note == q.note)
            #expect(synced.resolution.message == resolution.message)
        }
    }

    static let badTexts: [(String, String)] = [
        ("", "must not be empty"),
        (String(repeating: "a", count: ShortText.maxCharacters + 1), "281 characters"),
        (String(repeating: "🐉", count: 257), "1028 bytes"),
        ("tab\there", "U+0009"),
        ("cr\rhere", "U+000D"),
        ("escape \u{1B}[2J", "U+001B"),
        ("c1 \u{85}", "U+0085"),
    ]

    @Test(arguments: StorageBackend.all)
    func aBadNoteIsRefusedByNameAndStoresNothing(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let before = try await broker.fingerprint()
            for (text, rule) in Self.badTexts {
                var q = question(["sam"])
                q.note = text
                let outcome = try await broker.ask(q)
                let error = try #require(outcome.reply.errorReply, "\(outcome.reply)")
                #expect(error.code == .invalidText)
                #expect(error.message.hasPrefix("question.note: "), "\(error.message)")
                #expect(error.message.contains(rule), "\(error.message)")
                #expect(outcome.events.isEmpty)
            }
            #expect(try await broker.fingerprint() == before)
            var ok = question(["sam"])
            ok.note = String(repeating: "é", count: ShortText.maxCharacters)  // 280 characters, 560 bytes
            #expect(try await broker.ask(ok).reply.accepted != nil)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aBadMessageIsRefusedByNameAndTheQuestionStaysPending(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["sam"])
            _ = try await broker.ask(q)
            let before = try await broker.fingerprint()
            for (text, rule) in Self.badTexts {
                let outcome = try await broker.send(
                    .answer(questionID: q.id, choiceID: "approve", message: text), from: "alice")
                let error = try #require(outcome.reply.errorReply, "\(outcome.reply)")
                #expect(error.code == .invalidText)
                #expect(error.message.hasPrefix("answer.message: "), "\(error.message)")
                #expect(error.message.contains(rule), "\(error.message)")
                #expect(outcome.events.isEmpty)
            }
            #expect(try await broker.fingerprint() == before)
            #expect(try await broker.storedQuestion(q.id)?.resolution == nil)
            let answered = try await broker.send(
                .answer(questionID: q.id, choiceID: "approve", message: "fine\nhave fun"), from: "alice")
            #expect(answered.reply.answerResolution?.message == "fine\nhave fun")
        }
    }
}

/// A parent's list of approved handles: who approved each and when, and revoking from it.
@Suite("BrokerEngine approved list")
struct BrokerEngineApprovedTests {
    @Test(arguments: StorageBackend.all)
    func theListNamesWhoApprovedAndWhenAndFollowsRevocations(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            #expect(
                try await broker.send(.listApproved(childID: "emma"), from: "alice").reply
                    == .approvedList(childID: "emma", approvals: [], complete: true))
            let first = question(["sam", "lee"])
            _ = try await broker.ask(first)
            broker.clock.advance(by: 30)
            let answeredAt = broker.clock.now
            _ = try await broker.answer(first.id, "approve", from: "bob")
            let reply = try await broker.send(.listApproved(childID: "emma"), from: "alice").reply
            guard case .approvedList(let child, let approvals, let complete) = reply else {
                Issue.record("\(reply)")
                return
            }
            #expect(child == "emma" && complete)
            #expect(approvals.map(\.handle) == [handle("lee"), handle("sam")], "by kind, then value")
            #expect(approvals.allSatisfy { $0.approvedBy == "bob" && $0.approvedAt == answeredAt })
            #expect(approvals.allSatisfy { $0.questionID == first.id && !$0.inPerson })

            _ = try await broker.send(.revokeApproval(childID: "emma", handles: [handle("sam")]), from: "alice")
            let after = try await broker.send(.listApproved(childID: "emma"), from: "bob").reply
            guard case .approvedList(_, let left, _) = after else {
                Issue.record("\(after)")
                return
            }
            #expect(left.map(\.handle) == [handle("lee")])
            // Only a parent of the child's family: the child itself and other families get nothing.
            #expect(
                try await broker.send(.listApproved(childID: "emma"), from: "emma").reply.errorCode == .notAuthorized)
            #expect(try await broker.send(.listApproved(childID: "emma"), from: "zed").reply.errorCode == .notFound)
        }
    }
}
