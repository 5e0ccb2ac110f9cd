import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Questions that break the rules, choices that are not offered, and answers that come too late.
@Suite("BrokerEngine validation")
struct BrokerEngineValidationTests {
    private static let now = TestClock().now
    private static let also = PermissionChoice(id: "also-no", title: "No", answer: .denial)

    static let invalidQuestions: [(String, Question)] = [
        ("no persons", question([])),
        (
            "duplicate choice ids",
            question(
                ["h1"], choices: [.approve, .decline, PermissionChoice(id: "approve", title: "No", answer: .denial)])
        ),
        ("default not a choice", question(["h1"], defaultChoiceID: "maybe")),
        ("no approval choice", question(["h1"], choices: [.decline, also], defaultChoiceID: "decline")),
        ("no denial choice", question(["h1"], choices: [.approve], defaultChoiceID: "approve")),
        ("no choices", question(["h1"], choices: [], defaultChoiceID: "decline")),
        ("expired a second ago", question(["h1"], expirationDate: now - 1)),
        ("expiring now", question(["h1"], expirationDate: now)),
        ("empty update description", Question(topic: .significantAppUpdate(description: ""))),
    ]

    @Test(arguments: invalidQuestions)
    func anInvalidQuestionIsRefusedAndNothingIsStored(_ label: String, _ q: Question) async throws {
        // Emma has a family, Nora none and Tim limits off: validation comes before any default response.
        for child in ["emma", "nora", "tim"] {
            try await BrokerHarness.with { broker in
                #expect(broker.clock.now == Self.now)
                let outcome = try await broker.ask(q, from: child)
                #expect(outcome.reply.errorCode == .invalidQuestion, "\(label) from \(child): \(outcome.reply)")
                #expect(outcome.events.isEmpty)
                #expect(try await broker.questionCount() == 0)
                #expect(try await broker.storage.storedHeads().isEmpty)
            }
        }
    }

    @Test(arguments: ["", "has space", "com.example/chat", String(repeating: "a", count: 256)])
    func aBadBundleIDIsAnInvalidQuestion(_ app: String) async throws {
        try await BrokerHarness.with { broker in
            let outcome = try await broker.ask(question(["h1"]), app: app)
            #expect(
                outcome.reply.errorCode == .invalidQuestion || outcome.reply.errorCode == .malformedMessage,
                "\(outcome.reply)")
            #expect(try await broker.questionCount() == 0)
        }
    }

    @Test func aQuestionExpiringLaterIsAccepted() async throws {
        try await BrokerHarness.with { broker throws in
            let q = question(["h1"], expirationDate: broker.clock.now + 0.001)
            #expect(try await broker.ask(q).reply.accepted?.resolution == nil)
        }
    }

    @Test(arguments: StorageBackend.all)
    func answeringWithAChoiceThatIsNotOfferedIsInvalidChoice(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["h1"])
            _ = try await broker.ask(q)
            let before = try await broker.fingerprint()
            for choice in ["maybe", "", "Approve", "APPROVE"] {
                let outcome = try await broker.answer(q.id, choice, from: "alice")
                #expect(outcome.reply.errorCode == .invalidChoice, "'\(choice)': \(outcome.reply)")
                #expect(outcome.events.isEmpty)
            }
            #expect(try await broker.fingerprint() == before)
            // The question is still open.
            #expect(try await broker.answer(q.id, "approve", from: "alice").reply.answerResolution != nil)
        }
    }

    @Test(arguments: StorageBackend.all)
    func answeringAfterTheExpirationDateIsExpired(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["h1"], expirationDate: broker.clock.now + 60)
            _ = try await broker.ask(q)
            let before = try await broker.fingerprint()

            broker.clock.advance(by: 61)
            let late = try await broker.answer(q.id, "approve", from: "alice")
            #expect(late.reply.errorCode == .expired, "\(late.reply)")
            #expect(late.events.isEmpty)
            // Expiry is checked before the choice.
            #expect(try await broker.answer(q.id, "maybe", from: "bob").reply.errorCode == .expired)
            #expect(try await broker.fingerprint() == before)
            #expect(try await broker.send(.knownHandles(q.handles), from: "emma").reply == .knownHandlesResult([]))
        }
    }

    @Test(arguments: StorageBackend.all)
    func answeringExactlyAtTheExpirationDateIsExpired(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["h1"], expirationDate: broker.clock.now + 60)
            _ = try await broker.ask(q)
            broker.clock.advance(by: 59)
            let inTime = try await broker.answer(q.id, "decline", from: "alice")
            #expect(inTime.reply.answerResolution != nil, "\(inTime.reply)")

            let q2 = question(["h2"], expirationDate: broker.clock.now + 60)
            _ = try await broker.ask(q2)
            broker.clock.advance(by: 60)
            #expect(try await broker.answer(q2.id, "decline", from: "alice").reply.errorCode == .expired)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aRetriedAskAfterItsExpirationReturnsTheRecordedQuestion(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["h1"], expirationDate: broker.clock.now + 60)
            let first = try await broker.ask(q)
            #expect(first.reply.accepted != nil)
            broker.clock.advance(by: 120)
            let retry = try await broker.ask(q)
            // A retry (after a lost reply) has the first ask's one effect and reply, not a validation error.
            #expect(retry.reply == first.reply, "\(retry.reply)")
            #expect(retry.events.isEmpty)
        }
    }
}
