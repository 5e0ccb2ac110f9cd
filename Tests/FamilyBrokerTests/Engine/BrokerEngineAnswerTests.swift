import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// A parent's `answer`: resolution, events, known handles, first-answer-wins and idempotency.
@Suite("BrokerEngine answer")
struct BrokerEngineAnswerTests {
    @Test(arguments: StorageBackend.all)
    func approvalResolvesTellsEveryoneAndMakesTheHandlesKnown(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["dragonslayer42", "knight7"])
            let asked = try #require(try await broker.ask(q).reply.accepted?.asked)
            #expect(try await broker.send(.knownHandles(q.handles), from: "emma").reply == .knownHandlesResult([]))

            broker.clock.advance(by: 60)
            let outcome = try await broker.answer(q.id, "approve", from: "alice")
            let resolution = try #require(outcome.reply.answerResolution, "\(outcome.reply)")
            #expect(
                resolution
                    == Resolution(
                        questionID: q.id, choice: .approve, reason: .parentAnswered, answeredBy: "alice",
                        resolvedAt: broker.clock.now))

            let events = outcome.events
            // Child first (resolution, then handles), then the parents in family-file order.
            #expect(events.map(\.memberID) == ["emma", "emma", "alice", "bob"])
            for member in ["emma", "alice", "bob"] {
                let resolved = events.of(member).filter { $0.body.resolved != nil }
                #expect(resolved.count == 1, "\(member)")
                #expect(resolved.first?.body == .questionResolved(asked, resolution))
            }
            #expect(events.of("alice").map(\.sequence) == [2])
            #expect(events.of("bob").map(\.sequence) == [2])
            let emma = events.of("emma")
            #expect(emma.map(\.sequence) == [2, 3])
            #expect(emma.last?.body == .handlesChanged(added: q.handles, removed: []))
            #expect(events.filter { $0.body.handlesChange != nil }.recipients == ["emma"])
            #expect(try await broker.storage.storedHeads() == ["emma": 3, "alice": 2, "bob": 2])
            #expect(try await broker.storedQuestion(q.id)?.resolution == resolution)

            let known = try await broker.send(
                .knownHandles([handle("knight7"), handle("stranger"), handle("dragonslayer42")]), from: "emma")
            #expect(known.reply == .knownHandlesResult([handle("knight7"), handle("dragonslayer42")]))
            // In request order, duplicates kept.
            #expect(
                try await broker.send(.knownHandles([handle("knight7"), handle("x"), handle("knight7")]), from: "emma")
                    .reply
                    == .knownHandlesResult([handle("knight7"), handle("knight7")]))
            // Known to emma, not to another child, and a handle of another kind with the same value is another handle.
            #expect(try await broker.send(.knownHandles(q.handles), from: "yuri").reply == .knownHandlesResult([]))
            #expect(
                try await broker.send(.knownHandles([handle("knight7", .emailAddress)]), from: "emma").reply
                    == .knownHandlesResult([]))

            // Asking later about a known handle is approved at once, without telling the parents.
            broker.clock.advance(by: 60)
            let later = question(["knight7"])
            let again = try await broker.ask(later, app: "com.example.other")
            let laterResolution = try #require(again.reply.accepted?.resolution, "\(again.reply)")
            #expect(
                laterResolution
                    == Resolution(
                        questionID: later.id, choice: .approve, reason: .alreadyKnown, answeredBy: nil,
                        resolvedAt: broker.clock.now))
            #expect(again.events.count == 1)
            #expect(again.events.first?.memberID == "emma")
            #expect(again.events.first?.sequence == 4)
            #expect(again.events.first?.body.resolved?.resolution == laterResolution)
            #expect(try await broker.storage.storedHeads() == ["emma": 4, "alice": 2, "bob": 2])
        }
    }

    @Test(arguments: StorageBackend.all)
    func approvalOnlyAnnouncesHandlesThatWereNotKnown(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let first = question(["a"])
            _ = try await broker.ask(first)
            _ = try await broker.answer(first.id, "approve", from: "bob")

            let second = question(["a", "b"])
            #expect(try await broker.ask(second).reply.accepted?.resolution == nil, "b is not known yet")
            let outcome = try await broker.answer(second.id, "approve", from: "bob")
            #expect(outcome.events.of("emma").last?.body == .handlesChanged(added: [handle("b")], removed: []))
        }
    }

    @Test(arguments: StorageBackend.all)
    func theFirstAnswerWinsAndARepeatIsIdempotent(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["dragonslayer42"])
            _ = try await broker.ask(q)
            let first = try await broker.answer(q.id, "approve", from: "alice")
            let resolution = try #require(first.reply.answerResolution)
            let before = try await broker.fingerprint()

            broker.clock.advance(by: 10)
            for choice in ["approve", "decline"] {
                let bob = try await broker.answer(q.id, choice, from: "bob")
                let error = try #require(bob.reply.errorReply, "\(bob.reply)")
                #expect(error.code == .alreadyAnswered)
                #expect(error.message.contains("alice"), "\(error.message)")
                #expect(bob.events.isEmpty)
            }

            let repeated = try await broker.answer(q.id, "approve", from: "alice")
            #expect(repeated.reply == .answerAccepted(resolution))
            #expect(repeated.events.isEmpty)

            // Alice changing her mind is not a repeat.
            let changed = try await broker.answer(q.id, "decline", from: "alice")
            #expect(changed.reply.errorCode == .alreadyAnswered)
            #expect(changed.events.isEmpty)

            #expect(try await broker.fingerprint() == before)
        }
    }

    @Test(arguments: StorageBackend.all)
    func twoAnswersInOneBatchFirstWins(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["dragonslayer42"])
            _ = try await broker.ask(q)
            let (replies, events) = try await broker.batch([
                ("b1", MessageCodec.encode(.answer(questionID: q.id, choiceID: "decline"), requestID: 1)),
                ("a1", MessageCodec.encode(.answer(questionID: q.id, choiceID: "approve"), requestID: 2)),
            ])
            #expect(replies[0].answerResolution?.answeredBy == "bob")
            #expect(replies[1].errorCode == .alreadyAnswered)
            #expect(replies[1].errorReply?.message.contains("bob") == true)
            #expect(events.count == 3)
            #expect(try await broker.send(.knownHandles(q.handles), from: "emma").reply == .knownHandlesResult([]))
        }
    }

    @Test(arguments: StorageBackend.all)
    func declineResolvesWithoutChangingKnownHandles(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["dragonslayer42"])
            let asked = try #require(try await broker.ask(q).reply.accepted?.asked)
            let outcome = try await broker.answer(q.id, "decline", from: "bob")
            let resolution = try #require(outcome.reply.answerResolution, "\(outcome.reply)")
            #expect(resolution.choice == .decline)
            #expect(resolution.answeredBy == "bob")
            #expect(resolution.reason == .parentAnswered)

            #expect(outcome.events.count == 3)
            #expect(outcome.events.allSatisfy { $0.body == .questionResolved(asked, resolution) })
            #expect(outcome.events.allSatisfy { $0.sequence == 2 })
            #expect(outcome.events.recipients == ["emma", "alice", "bob"])

            #expect(try await broker.send(.knownHandles(q.handles), from: "emma").reply == .knownHandlesResult([]))
            let tables = try await broker.fingerprint()
            #expect(tables.knownHandles.isEmpty)

            // Asking again goes to the parents again.
            let again = try await broker.ask(question(["dragonslayer42"]))
            #expect(again.reply.accepted?.resolution == nil)
            #expect(again.events.count == 3)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aCustomDenialChoiceIsADecline(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let notNow = PermissionChoice(id: "not-now", title: "Not now", answer: .denial)
            let q = question(["h1"], choices: [.approve, .decline, notNow])
            _ = try await broker.ask(q)
            let outcome = try await broker.answer(q.id, "not-now", from: "alice")
            #expect(outcome.reply.answerResolution?.choice == notNow)
            #expect(outcome.events.allSatisfy { $0.body.handlesChange == nil })
            #expect(try await broker.send(.knownHandles(q.handles), from: "emma").reply == .knownHandlesResult([]))
        }
    }
}
