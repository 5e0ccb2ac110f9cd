import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// A child's `ask`: who is told, how the logs are numbered, idempotency and the default responses.
@Suite("BrokerEngine ask")
struct BrokerEngineAskTests {
    @Test(arguments: StorageBackend.all)
    func askIsPendingAndToldToTheChildAndItsParents(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["dragonslayer42"])
            let outcome = try await broker.ask(q)
            let accepted = try #require(outcome.reply.accepted, "\(outcome.reply)")
            #expect(accepted.resolution == nil)
            #expect(
                accepted.asked
                    == AskedQuestion(
                        question: pendingForm(of: q, askedAt: broker.clock.now), childMemberID: "emma",
                        appBundleID: "com.example.chat", askingDeviceID: "e1", askedAt: broker.clock.now))

            // Child first, then the parents in family-file order.
            #expect(outcome.events.map(\.memberID) == ["emma", "alice", "bob"])
            for event in outcome.events {
                #expect(event.sequence == 1)
                #expect(event.createdAt == broker.clock.now)
                #expect(event.body == .questionPending(accepted.asked))
            }

            #expect(try await broker.storage.storedHeads() == ["emma": 1, "alice": 1, "bob": 1])
            #expect(broker.sequences.snapshot() == ["emma": 1, "alice": 1, "bob": 1])
            let logs = try await broker.logs()
            for member in ["carol", "tim", "zed", "yuri", "nora"] {
                #expect(logs[member]?.head == 0, "\(member)")
                #expect(logs[member]?.events.isEmpty == true, "\(member)")
            }
            for member in ["emma", "alice", "bob"] {
                #expect(logs[member]?.head == 1)
                #expect(logs[member]?.events == outcome.events.of(member))
            }
            let stored = try #require(try await broker.storedQuestion(q.id))
            #expect(stored.asked == accepted.asked)
            #expect(stored.resolution == nil)
        }
    }

    @Test(arguments: StorageBackend.all)
    func sequencesIncreaseByOneWithoutGapsPerMember(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            var all: [Event] = []
            for n in 1...5 {
                broker.clock.advance(by: 1)
                all += try await broker.ask(question(["h\(n)"]), from: "emma").events
                all += try await broker.ask(question(["y\(n)"]), from: "yuri").events
            }
            // One batch with several asks numbers them in order too.
            let (_, batchEvents) = try await broker.batch(
                (6...8).map { n in
                    (
                        "e1",
                        MessageCodec.encode(
                            .ask(appBundleID: "com.example.chat", question: question(["h\(n)"])), requestID: UInt64(n))
                    )
                })
            all += batchEvents

            for member in ["emma", "alice", "bob"] {
                #expect(all.of(member).map(\.sequence) == Array(1...8), "\(member)")
            }
            for member in ["yuri", "zed"] {
                #expect(all.of(member).map(\.sequence) == Array(1...5), "\(member)")
            }
            #expect(all.of("carol").isEmpty)
            #expect(try await broker.storage.storedHeads() == ["emma": 8, "alice": 8, "bob": 8, "yuri": 5, "zed": 5])
            #expect(broker.sequences.snapshot() == (try await broker.storage.storedHeads()))

            let logs = try await broker.logs()
            for member in ["emma", "alice", "bob", "yuri", "zed"] {
                #expect(logs[member]?.events == all.of(member), "\(member)")
            }
        }
    }

    @Test(arguments: StorageBackend.all)
    func askingTheSameQuestionIDAgainRepliesAsTheFirstTime(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["dragonslayer42"])
            let first = try await broker.ask(q)
            #expect(first.events.count == 3)
            let before = try await broker.fingerprint()

            broker.clock.advance(by: 30)
            let second = try await broker.ask(q)
            #expect(second.reply == first.reply)
            #expect(second.events.isEmpty)
            #expect(try await broker.fingerprint() == before)

            // Retried from the same batch too: one effect.
            let q2 = question(["other"])
            let frame = MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: q2), requestID: 9)
            let (replies, events) = try await broker.batch([("e1", frame), ("e1", frame)])
            #expect(replies[0] == replies[1])
            #expect(events.count == 3)
            #expect(try await broker.questionCount() == 2)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aRetryAfterAnAnswerCarriesTheResolution(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["dragonslayer42"])
            let first = try #require(try await broker.ask(q).reply.accepted)
            let resolution = try #require(
                try await broker.answer(q.id, "approve", from: "alice").reply.answerResolution)
            let retry = try await broker.ask(q)
            #expect(retry.reply == .askAccepted(first.asked, resolution))
            #expect(retry.events.isEmpty)
        }
    }

    @Test(arguments: StorageBackend.all)
    func anotherChildCannotReuseAQuestionID(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["dragonslayer42"])
            _ = try await broker.ask(q, from: "emma")
            let before = try await broker.fingerprint()
            let outcome = try await broker.ask(q, from: "yuri")
            #expect(outcome.reply.errorCode == .invalidQuestion, "\(outcome.reply)")
            #expect(outcome.events.isEmpty)
            #expect(try await broker.fingerprint() == before)
        }
    }

    @Test(arguments: StorageBackend.all)
    func theSameHandlesAskedAgainWhilePendingReturnThePendingQuestion(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["h1", "h2"])
            let first = try #require(try await broker.ask(q).reply.accepted)
            let before = try await broker.fingerprint()

            broker.clock.advance(by: 5)
            // A new question id from the same app, the same people in another order: parents are not asked twice.
            let again = question(["h2", "h1"])
            let outcome = try await broker.ask(again)
            #expect(outcome.reply == .askAccepted(first.asked, nil))
            #expect(outcome.events.isEmpty)
            #expect(try await broker.fingerprint() == before)
            #expect(try await broker.storedQuestion(again.id) == nil)

            // Another app asking about the same people is a question of its own.
            let otherApp = try await broker.ask(question(["h1", "h2"]), app: "com.example.other")
            #expect(otherApp.reply.accepted?.asked.appBundleID == "com.example.other")
            #expect(otherApp.events.count == 3)

            // So is another child asking about the same people.
            let other = try await broker.ask(question(["h1", "h2"]), from: "yuri")
            #expect(other.reply.accepted?.asked.childMemberID == "yuri")
            #expect(other.events.recipients == ["yuri", "zed"])

            // And a subset of the people.
            let subset = try await broker.ask(question(["h1"]))
            #expect(subset.reply.accepted?.resolution == nil)
            #expect(subset.events.count == 3)

            // Once the first is answered (declined), the same people make a new question that parents are asked.
            _ = try await broker.answer(q.id, "decline", from: "bob")
            let afterDecline = question(["h1", "h2"])
            let third = try await broker.ask(afterDecline)
            #expect(third.reply.accepted?.asked.question.id == afterDecline.id)
            #expect(third.reply.accepted?.resolution == nil)
            #expect(third.events.count == 3)
        }
    }

    @Test(arguments: StorageBackend.all)
    func anExpiredPendingQuestionIsNotReturnedForANewAsk(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["h1"], expirationDate: broker.clock.now + 60)
            _ = try await broker.ask(q)
            broker.clock.advance(by: 60)
            let fresh = question(["h1"])
            let outcome = try await broker.ask(fresh)
            #expect(outcome.reply.accepted?.asked.question.id == fresh.id, "\(outcome.reply)")
            #expect(outcome.events.map(\.sequence) == [2, 2, 2])
        }
    }

    @Test(arguments: StorageBackend.all)
    func aChildInNoFamilyGetsTheDefaultResponseAtOnce(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["h1"])
            let outcome = try await broker.ask(q, from: "nora")
            let accepted = try #require(outcome.reply.accepted, "\(outcome.reply)")
            let resolution = try #require(accepted.resolution)
            #expect(
                resolution
                    == Resolution(
                        questionID: q.id, choice: .decline, reason: .defaultNoFamily, answeredBy: nil,
                        resolvedAt: broker.clock.now))
            // Only the child's own log: no parent is told.
            #expect(outcome.events.count == 1)
            #expect(outcome.events.first?.memberID == "nora")
            #expect(outcome.events.first?.sequence == 1)
            #expect(outcome.events.first?.body == .questionResolved(accepted.asked, resolution))
            #expect(try await broker.storage.storedHeads() == ["nora": 1])
            #expect(try await broker.storedQuestion(q.id)?.resolution == resolution)
            #expect(try await broker.send(.knownHandles([handle("h1")]), from: "nora").reply == .knownHandlesResult([]))
        }
    }

    @Test func theDefaultResponseIsTheQuestionsDefaultChoice() async throws {
        try await BrokerHarness.with { broker in
            let ask = PermissionChoice(id: "ask-later", title: "Not now", answer: .denial)
            let q = question(["h1"], choices: [.approve, .decline, ask], defaultChoiceID: "ask-later")
            let resolution = try #require(try await broker.ask(q, from: "nora").reply.accepted?.resolution)
            #expect(resolution.choice == ask)

            // An approving default approves, and still tells no parent and records no known handle.
            let generous = question(["h2"], defaultChoiceID: "approve")
            let outcome = try await broker.ask(generous, from: "tim")
            #expect(outcome.reply.accepted?.resolution?.choice == .approve)
            #expect(outcome.events.recipients == ["tim"])
            // Nothing became known by the default; with limits off nothing is restricted, so every handle counts as known.
            #expect(
                try await broker.store.read { db in
                    try BrokerStore.knownHandles(of: "tim", among: [handle("h2")], in: db)
                }.isEmpty)
            #expect(
                try await broker.send(.knownHandles([handle("h2")]), from: "tim").reply
                    == .knownHandlesResult([handle("h2")]))
        }
    }

    @Test(arguments: StorageBackend.all)
    func aChildWithLimitsOffGetsTheDefaultResponseAtOnce(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["h1"])
            let outcome = try await broker.ask(q, from: "tim")
            let resolution = try #require(outcome.reply.accepted?.resolution, "\(outcome.reply)")
            #expect(resolution.reason == .defaultLimitsOff)
            #expect(resolution.choice == .decline)
            #expect(resolution.answeredBy == nil)
            #expect(outcome.events.recipients == ["tim"])
            #expect(try await broker.storage.storedHeads() == ["tim": 1])
            // Parents cannot answer it any more: it is resolved.
            let late = try await broker.answer(q.id, "approve", from: "alice")
            #expect(late.reply.errorCode == .alreadyAnswered, "\(late.reply)")
            #expect(late.events.isEmpty)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aSignificantAppUpdateQuestionIsAlwaysAsked(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = Question(topic: .significantAppUpdate(description: "Version 2 adds chat"))
            let first = try await broker.ask(q)
            #expect(first.reply.accepted?.resolution == nil)
            #expect(first.events.count == 3)
            // No handles, so no "same people" deduplication: a second update question is asked too.
            let second = try await broker.ask(Question(topic: .significantAppUpdate(description: "Version 3")))
            #expect(second.events.count == 3)
        }
    }

    /// Communication Limits govern whom a child talks to, not a change of an app: with them off, a significant-update
    /// question still goes to the parents (a communication one gets its default at once).
    @Test(arguments: StorageBackend.all)
    func aSignificantAppUpdateQuestionIsAskedWithLimitsOff(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let update = Question(topic: .significantAppUpdate(description: "Version 2 adds chat"))
            let outcome = try await broker.ask(update, from: "tim")
            #expect(outcome.reply.accepted?.resolution == nil, "\(outcome.reply)")
            #expect(outcome.events.recipients.count > 1 && outcome.events.recipients.contains("tim"))
            let chat = try await broker.ask(question(["h1"]), from: "tim")
            #expect(chat.reply.accepted?.resolution?.reason == .defaultLimitsOff)
        }
    }

    @Test(arguments: StorageBackend.all)
    func handlesRepeatedInOneQuestionAreNotApprovedByOneKnownHandle(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let known = question(["friend"])
            _ = try await broker.ask(known)
            _ = try await broker.answer(known.id, "approve", from: "alice")

            // "friend" is known, "stranger" is not; "friend" appears twice.
            let q = question(["friend", "friend", "stranger"])
            let outcome = try await broker.ask(q)
            let accepted = try #require(outcome.reply.accepted, "\(outcome.reply)")
            #expect(
                accepted.resolution == nil,
                "a stranger was approved without asking: \(String(describing: accepted.resolution))")
        }
    }
}
