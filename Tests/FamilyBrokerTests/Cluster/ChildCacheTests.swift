import Foundation
import HearthCore
import HearthLab
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// A partition owner answers its children's asks from memory (`CachedChild`) and takes an ask's question id for new
/// without reading it, on real PostgreSQL servers: what another broker wrote while it held the partition is seen, and
/// a reused id is answered from the stored question (a retry) or refused (another child's), never stored twice.
@Suite("Owner cache: a child's rows and an ask's id", .serialized, .tags(.postgres))
struct ChildCacheTests {
    typealias Broker = ClusterLeaseTests.Broker

    /// Each change b makes while it owns emma's partition would be missed by a broker answering from the rows it
    /// kept before: a contact, the settings, an answered question still pending, and asks counted by the limit.
    @Test func aBrokerThatTakesAPartitionBackSeesTheChildRowsTheOtherBrokerWrote() async throws {
        try await ClusterLeaseTests.withDatabase { url, password in
            let (a, b) = try await Self.brokers(url, password, askLimit: 4)
            let first = UUID()
            try Self.expectPending(await a.ask("p", id: first), first)
            try await OwnerCacheTests.move(from: a, to: b)
            try OwnerCacheTests.expectAccepted(await b.answer(first, "decline"))
            let contact = Contact(handle: handle("c"), allowedDuringDowntime: false)
            try OwnerCacheTests.expectAccepted(
                await b.send(.editContacts(childID: "emma", add: [contact], remove: []), from: "alice"))
            try OwnerCacheTests.expectAccepted(await b.ask("b1", id: UUID()))
            try await OwnerCacheTests.move(from: b, to: a)

            // The question b declined is not pending: a new one about p is stored.
            let again = UUID()
            try Self.expectPending(await a.ask("p", id: again), again)
            // b's contact is known: resolved at once.
            guard case .success(.askAccepted(_, let known?)) = await a.ask("c", id: UUID()) else {
                Issue.record("a did not see the contact b added")
                return
            }
            #expect(known.reason == .alreadyKnown)
            // p, b1, p again and c make four: the limit.
            guard case .failure(let refused) = await a.ask("over", id: UUID()) else {
                Issue.record("a did not count the ask b stored")
                return
            }
            #expect(refused.code == .rateLimited)

            try await OwnerCacheTests.move(from: a, to: b)
            let off = CommunicationSettings(enabled: false)
            try OwnerCacheTests.expectAccepted(await b.send(.setLimits(childID: "emma", settings: off), from: "alice"))
            // Out of the limit's window, so that the next ask reaches the settings.
            try await b.sql("UPDATE question SET asked_at = 0")
            try await OwnerCacheTests.move(from: b, to: a)
            guard case .success(.askAccepted(_, let resolution?)) = await a.ask("q", id: UUID()) else {
                Issue.record("a asked the parents although b turned emma's limits off")
                return
            }
            #expect(resolution.reason == .defaultLimitsOff)
        }
    }

    /// A retry of an ask that another broker stored gets that question (and its answer), once: the retry's insert
    /// finds the id taken, or the retry is over the ask limit, and the batch runs again reading the id.
    @Test func aRetriedAskStoredByAnotherOwnerGetsTheStoredQuestion() async throws {
        try await ClusterLeaseTests.withDatabase { url, password in
            let (a, b) = try await Self.brokers(url, password, askLimit: 3)
            try await OwnerCacheTests.move(from: a, to: b)
            let approved = UUID()
            try Self.expectPending(await b.ask("r", id: approved), approved)
            try OwnerCacheTests.expectAccepted(await b.answer(approved, "approve"))
            let pending = UUID()
            try Self.expectPending(await b.ask("s", id: pending), pending)
            try await OwnerCacheTests.move(from: b, to: a)

            // r is approved now, so the retry alone would be resolved at once (and stored again).
            guard case .success(.askAccepted(let asked, let resolution?)) = await a.ask("r", id: approved) else {
                Issue.record("the retry of an answered ask did not get its answer")
                return
            }
            #expect(asked.question.id == approved && resolution.reason == .parentAnswered)
            try Self.expectPending(await a.ask("v", id: UUID()), nil)
            // Three asks in the limit's window: the retry of the second is not refused, it gets its question.
            try Self.expectPending(await a.ask("s", id: pending), pending)
            let resolved = try await a.store.reading { try $0.events(of: "emma", after: 0, limit: 100) }
                .filter { event in
                    if case .questionResolved(let asked, _) = event.body { return asked.question.id == approved }
                    return false
                }
            #expect(resolved.count == 1, "the answer was announced once")
        }
    }

    /// A retry of an ask that was answered, while another ask about the same people is pending, gets its own
    /// question and answer, not the pending one.
    @Test func aRetryIsNotAnsweredWithAnotherPendingQuestion() async throws {
        try await ClusterLeaseTests.withDatabase { url, password in
            let (a, b) = try await Self.brokers(url, password, askLimit: 10)
            try await OwnerCacheTests.move(from: a, to: b)
            let declined = UUID()
            try Self.expectPending(await b.ask("t", id: declined), declined)
            try OwnerCacheTests.expectAccepted(await b.answer(declined, "decline"))
            let later = UUID()
            try Self.expectPending(await b.ask("t", id: later), later)
            try await OwnerCacheTests.move(from: b, to: a)

            guard case .success(.askAccepted(let asked, let resolution)) = await a.ask("t", id: declined) else {
                Issue.record("the retry was refused")
                return
            }
            #expect(asked.question.id == declined, "the retry got the other pending question")
            #expect(resolution?.choice.id == "decline")
        }
    }

    /// Another child's ask with an id already used is refused, and nothing of it is stored.
    @Test func anIDAnotherChildUsedIsRefused() async throws {
        try await ClusterLeaseTests.withDatabase { url, password in
            let (a, _) = try await Self.brokers(url, password, askLimit: 10)
            let id = UUID()
            try Self.expectPending(await a.ask("u", id: id), id)
            let request = BrokerRequest(
                deviceID: "y1", memberID: "yuri",
                command: .ask(app: "com.example.chat", question: question(["u"], id: id)))
            guard case .failure(let refused) = await a.engine.process([request]).outcomes[0] else {
                Issue.record("yuri's ask reused emma's question id")
                return
            }
            #expect(refused.code == .invalidQuestion)
            let stored = try #require(try await a.store.reading { try $0.question(id) })
            #expect(stored.asked.childMemberID == "emma")
            #expect(try await a.store.reading { try $0.events(of: "yuri", after: 0, limit: 10) }.isEmpty)
        }
    }

    /// A directory change may move a member to a family of a partition another broker owns (and back): the broker
    /// that made it forgets what it kept, as every other broker does when it reads the directory again.
    @Test func aDirectoryChangeForgetsTheChildRows() async throws {
        try await ClusterLeaseTests.withDatabase { url, password in
            let (a, _) = try await Self.brokers(url, password, askLimit: 10)
            try Self.expectPending(await a.ask("w", id: UUID()), nil)
            #expect(a.store.ownerCache.child("emma") != nil, "emma's rows are kept after her ask")
            var file = try TestFamily.file()
            file.unaffiliated = []
            _ = try await a.engine.applyConfiguration(
                Directory(file: file, keysDirectory: "/nonexistent", source: "test-family.yaml"))
            #expect(a.store.ownerCache.child("emma") == nil, "kept across a directory change")
        }
    }

    /// Brokers a (serving every partition) and b, with emma's ask limit at `askLimit` an hour.
    static func brokers(_ url: PostgresURL, _ password: String, askLimit: Int) async throws -> (Broker, Broker) {
        var defaults = ChildDefaults.builtIn
        defaults.askLimit = .init(count: askLimit, perSeconds: 3600)
        let policy = BrokerPolicy(childDefaults: defaults, passcodeCost: 10)
        let a = try await Broker("a", url: url, password: password, policy: policy)
        let b = try await Broker("b", url: url, password: password, policy: policy)
        await a.keeper.round()
        return (a, b)
    }

    static func expectPending(
        _ outcome: CommandOutcome, _ id: UUID?, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        guard case .success(.askAccepted(let asked, nil)) = outcome, id == nil || asked.question.id == id else {
            Issue.record("not pending as \(id): \(outcome)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
    }
}

extension ClusterLeaseTests.Broker {
    /// `member` (on its test device) sends `command`.
    func send(_ command: BrokerCommand, from member: MemberID) async -> CommandOutcome {
        let request = BrokerRequest(deviceID: TestFamily.deviceOf[member]!, memberID: member, command: command)
        return await engine.process([request]).outcomes[0]
    }
}
