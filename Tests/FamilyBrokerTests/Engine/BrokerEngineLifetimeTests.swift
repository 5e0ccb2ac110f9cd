import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Nothing waits forever: every pending question gets its family's lifetime, its parents are reminded once before it
/// expires, and the child's app may withdraw it; a withdrawn or expired question cannot be answered.
@Suite("BrokerEngine lifetimes, reminders, withdrawal")
struct BrokerEngineLifetimeTests {
    /// The test family with f1's question times set.
    static func directory(lifetime: String?, reminder: String?) throws -> Directory {
        var file = try TestFamily.file()
        file.families[0].questionLifetime = lifetime
        file.families[0].questionReminder = reminder
        return try Directory(file: file, keysDirectory: "/nonexistent", source: "test-family.yaml")
    }

    @Test(arguments: StorageBackend.all)
    func aPendingQuestionGetsTheLifetimeAndKeepsAnEarlierDate(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let now = broker.clock.now
            let open = try #require(try await broker.ask(question(["a"])).reply.accepted)
            #expect(open.asked.question.expirationDate == now.addingTimeInterval(72 * 3600))
            let far = question(["b"], expirationDate: now.addingTimeInterval(100 * 86_400))
            let capped = try #require(try await broker.ask(far).reply.accepted)
            #expect(capped.asked.question.expirationDate == now.addingTimeInterval(72 * 3600), "capped")
            let soon = question(["c"], expirationDate: now.addingTimeInterval(600))
            let kept = try #require(try await broker.ask(soon).reply.accepted)
            #expect(kept.asked.question.expirationDate == now.addingTimeInterval(600))
            #expect(try await broker.storedQuestion(open.asked.question.id)?.asked == open.asked)
            // Resolved at once (tim's limits are off): no lifetime to give.
            let atOnce = try #require(try await broker.ask(question(["d"]), from: "tim").reply.accepted)
            #expect(atOnce.resolution != nil && atOnce.asked.question.expirationDate == nil)

            broker.clock.advance(by: 72 * 3600 + 1)
            let swept = try await broker.engine.expireQuestions()
            let expired = Set(swept.events.of("emma").compactMap { $0.body.resolved?.asked.question.id })
            #expect(expired == [open.asked.question.id, far.id, soon.id], "nothing waits forever")
        }
    }

    @Test(arguments: StorageBackend.all)
    func theFamilySetsTheLifetimeAndTheParentsAreRemindedOnce(_ backend: StorageBackend) async throws {
        let directory = try Self.directory(lifetime: "2h", reminder: "30m")
        try await BrokerHarness.with(backend, directory: directory) { broker in
            let asked = try #require(try await broker.ask(question(["sam"])).reply.accepted).asked
            #expect(asked.question.expirationDate == broker.clock.now.addingTimeInterval(7200))
            // Zed's family keeps the standard times.
            let other = try #require(try await broker.ask(question(["sam"]), from: "yuri").reply.accepted).asked
            #expect(other.question.expirationDate == broker.clock.now.addingTimeInterval(72 * 3600))

            broker.clock.advance(by: 5400 - 1)
            #expect(try await broker.engine.expireQuestions().events.isEmpty, "not yet: 30 min before expiry")
            broker.clock.advance(by: 1)
            let reminded = try await broker.engine.expireQuestions().events
            #expect(reminded.recipients == ["alice", "bob"], "the parents, not the child")
            #expect(reminded.allSatisfy { $0.body == .questionReminder(asked) })
            broker.clock.advance(by: 60)
            #expect(try await broker.engine.expireQuestions().events.isEmpty, "once")
            broker.clock.advance(by: 1800)
            let expired = try await broker.engine.expireQuestions().events
            #expect(expired.recipients == ["emma", "alice", "bob"])
            #expect(expired.first?.body.resolved?.resolution.reason == .expired)
        }
    }

    @Test(arguments: StorageBackend.all)
    func noReminderForAQuestionAnsweredFirstOrWithReminderOff(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend, directory: try Self.directory(lifetime: "10m", reminder: "0s")) { b in
            _ = try await b.ask(question(["x"]))
            b.clock.advance(by: 9 * 60)
            #expect(try await b.engine.expireQuestions().events.isEmpty, "reminders off")
        }
        try await BrokerHarness.with(backend, directory: try Self.directory(lifetime: "2h", reminder: "1h")) { b in
            // A question whose own life (10 min) is shorter than twice the reminder: halfway through it.
            let q = question(["y"], expirationDate: b.clock.now.addingTimeInterval(600))
            _ = try await b.ask(q)
            b.clock.advance(by: 5 * 60)
            #expect(try await b.engine.expireQuestions().events.map(\.body.kindCode) == [5, 5])
            let answered = question(["z"], expirationDate: b.clock.now.addingTimeInterval(600))
            _ = try await b.ask(answered)
            _ = try await b.answer(answered.id, "approve", from: "alice")
            b.clock.advance(by: 5 * 60 - 1)
            #expect(try await b.engine.expireQuestions().events.isEmpty, "answered: no reminder")
        }
    }

    @Test func badTimesAreRefusedByKey() {
        for (lifetime, reminder, key) in [
            ("forever", nil, "questionLifetime"), ("30s", nil, "questionLifetime"), ("31d", nil, "questionLifetime"),
            ("1h", "2h", "questionReminder"), (nil, "soon", "questionReminder"),
        ] as [(String?, String?, String)] {
            #expect {
                _ = try Self.directory(lifetime: lifetime, reminder: reminder)
            } throws: { error in
                "\(error)".contains("families[0].\(key)")
            }
        }
    }

    @Test(arguments: StorageBackend.all)
    func theChildWithdrawsAndNobodyCanAnswer(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q = question(["sam"])
            let asked = try #require(try await broker.ask(q).reply.accepted).asked
            // Only the child who asked: a parent declines instead, another family learns nothing.
            #expect(try await broker.send(.withdraw(questionID: q.id), from: "alice").reply.errorCode == .notAuthorized)
            #expect(try await broker.send(.withdraw(questionID: q.id), from: "yuri").reply.errorCode == .notFound)
            #expect(try await broker.send(.withdraw(questionID: q.id), from: "zed").reply.errorCode == .notFound)
            #expect(try await broker.send(.withdraw(questionID: UUID()), from: "emma").reply.errorCode == .notFound)

            broker.clock.advance(by: 10)
            let withdrawn = try await broker.send(.withdraw(questionID: q.id), from: "emma")
            let resolution = try #require(withdrawn.reply.answerResolution, "\(withdrawn.reply)")
            #expect(resolution.reason == .withdrawn && resolution.choice == .decline && resolution.answeredBy == nil)
            #expect(withdrawn.events.recipients == ["emma", "alice", "bob"])
            #expect(withdrawn.events.allSatisfy { $0.body == .questionResolved(asked, resolution) })
            // Again: the same resolution, nothing more.
            let again = try await broker.send(.withdraw(questionID: q.id), from: "emma")
            #expect(again.reply.answerResolution == resolution && again.events.isEmpty)

            let answer = try await broker.answer(q.id, "approve", from: "bob").reply.errorReply
            #expect(answer?.code == .withdrawn && answer?.message.contains("withdrawn") == true)
            #expect(try await broker.storedQuestion(q.id)?.resolution == resolution)
        }
    }

    @Test(arguments: StorageBackend.all)
    func anAnsweredOrExpiredQuestionCannotBeWithdrawn(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let answered = question(["a"])
            _ = try await broker.ask(answered)
            _ = try await broker.answer(answered.id, "approve", from: "alice")
            let late = try await broker.send(.withdraw(questionID: answered.id), from: "emma")
            #expect(late.reply.errorCode == .alreadyAnswered && late.events.isEmpty)

            let expiring = question(["b"], expirationDate: broker.clock.now.addingTimeInterval(30))
            _ = try await broker.ask(expiring)
            broker.clock.advance(by: 31)
            #expect(try await broker.send(.withdraw(questionID: expiring.id), from: "emma").reply.errorCode == .expired)
            _ = try await broker.engine.expireQuestions()
            #expect(try await broker.send(.withdraw(questionID: expiring.id), from: "emma").reply.errorCode == .expired)
        }
    }
}
