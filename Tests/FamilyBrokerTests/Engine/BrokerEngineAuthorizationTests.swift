import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Who may ask, answer and read known handles; a refusal changes nothing.
@Suite("BrokerEngine authorization")
struct BrokerEngineAuthorizationTests {
    /// Emma's pending question, with a fingerprint of the store taken after it.
    private func pendingQuestion(_ broker: BrokerHarness) async throws -> (Question, StoreFingerprint) {
        let q = question(["dragonslayer42"])
        #expect(try await broker.ask(q).reply.accepted?.resolution == nil)
        return (q, try await broker.fingerprint())
    }

    /// Sends `message` from `member`, expects `code`, no events, and the store as it was.
    private func expectRefused(
        _ broker: BrokerHarness, _ message: Message, from member: MemberID, _ code: ErrorCode,
        unchanged before: StoreFingerprint,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ErrorReply? {
        let outcome = try await broker.send(message, from: member, sourceLocation: sourceLocation)
        #expect(outcome.reply.errorCode == code, "\(member): \(outcome.reply)", sourceLocation: sourceLocation)
        #expect(outcome.events.isEmpty, sourceLocation: sourceLocation)
        #expect(try await broker.fingerprint() == before, sourceLocation: sourceLocation)
        return outcome.reply.errorReply
    }

    @Test(arguments: StorageBackend.all)
    func anAdultWhoIsNotAGuardianCannotAnswer(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let (q, before) = try await pendingQuestion(broker)
            _ = try await expectRefused(
                broker, .answer(questionID: q.id, choiceID: "approve"), from: "carol", .notAuthorized, unchanged: before
            )
            // Refused before the question is looked up: an adult learns nothing about which questions exist.
            _ = try await expectRefused(
                broker, .answer(questionID: UUID(), choiceID: "approve"), from: "carol", .notAuthorized,
                unchanged: before)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aParentOfAnotherFamilyGetsNotFound(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let (q, before) = try await pendingQuestion(broker)
            let existing = try #require(
                try await expectRefused(
                    broker, .answer(questionID: q.id, choiceID: "approve"), from: "zed", .notFound, unchanged: before))
            let missingID = UUID()
            let missing = try #require(
                try await expectRefused(
                    broker, .answer(questionID: missingID, choiceID: "approve"), from: "zed", .notFound,
                    unchanged: before))
            // The same words for an existing and a missing question, but for the id each names.
            #expect(
                existing.message.replacingOccurrences(of: q.id.uuidString, with: "ID")
                    == missing.message.replacingOccurrences(of: missingID.uuidString, with: "ID"))
            #expect(!existing.message.contains("emma"))
            #expect(!existing.message.contains("f1"))
        }
    }

    @Test(arguments: StorageBackend.all)
    func aParentCannotAnswerAnUnaffiliatedChildsQuestion(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["h1"])
            _ = try await broker.ask(q, from: "nora")
            let before = try await broker.fingerprint()
            for parent in ["alice", "zed"] {
                let outcome = try await broker.answer(q.id, "approve", from: parent)
                #expect(outcome.reply.errorCode == .notFound, "\(parent): \(outcome.reply)")
            }
            #expect(try await broker.fingerprint() == before)
        }
    }

    @Test(arguments: ["emma", "tim", "yuri", "nora"])
    func aChildCannotAnswer(_ child: MemberID) async throws {
        try await BrokerHarness.with { broker in
            let (q, before) = try await pendingQuestion(broker)
            _ = try await expectRefused(
                broker, .answer(questionID: q.id, choiceID: "approve"), from: child, .notAuthorized, unchanged: before)
        }
    }

    @Test(arguments: ["alice", "bob", "carol", "zed"])
    func anAdultCannotAsk(_ adult: MemberID) async throws {
        try await BrokerHarness.with { broker in
            let (_, before) = try await pendingQuestion(broker)
            _ = try await expectRefused(
                broker, .ask(appBundleID: "com.example.chat", question: question(["h9"])), from: adult, .notAvailable,
                unchanged: before)
        }
    }

    @Test(arguments: ["alice", "bob", "carol", "zed"])
    func anAdultHasNoKnownHandles(_ adult: MemberID) async throws {
        try await BrokerHarness.with { broker in
            let (q, before) = try await pendingQuestion(broker)
            _ = try await expectRefused(broker, .knownHandles(q.handles), from: adult, .notAvailable, unchanged: before)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aRefusalInABatchDoesNotDisturbItsNeighbours(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let (q, _) = try await pendingQuestion(broker)
            let (replies, events) = try await broker.batch([
                ("c1", MessageCodec.encode(.answer(questionID: q.id, choiceID: "approve"), requestID: 1)),
                ("z1", MessageCodec.encode(.answer(questionID: q.id, choiceID: "approve"), requestID: 2)),
                ("a1", MessageCodec.encode(.answer(questionID: q.id, choiceID: "approve"), requestID: 3)),
                (
                    "a1",
                    MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: question(["h2"])), requestID: 4)
                ),
            ])
            #expect(replies.map(\.errorCode) == [.notAuthorized, .notFound, nil, .notAvailable])
            #expect(replies[2].answerResolution?.answeredBy == "alice")
            #expect(events.count == 4)
            #expect(try await broker.storage.storedHeads() == ["emma": 3, "alice": 2, "bob": 2])
        }
    }
}
