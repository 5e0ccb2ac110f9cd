import Foundation
import HearthCore
import HearthLab
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The partition owner's rows in memory (`OwnerCache`) on real PostgreSQL servers: what another broker wrote while it
/// held a partition, and what a commit in doubt may have stored, are read from the server again, never answered from
/// what the cache held before. Each test fails on a cache that is not forgotten: a question answered twice, or a
/// handle announced as new twice.
@Suite("Owner cache across lease loss, takeover and a commit in doubt", .serialized, .tags(.postgres))
struct OwnerCacheTests {
    typealias Broker = ClusterLeaseTests.Broker

    @Test func aBrokerThatTakesAPartitionBackSeesWhatTheOtherBrokerWrote() async throws {
        try await ClusterLeaseTests.withDatabase { url, password in
            let a = try await Broker("a", url: url, password: password)
            let b = try await Broker("b", url: url, password: password)
            await a.keeper.round()
            // a knows emma's approved handles whole ({w}) and her pending question about x.
            let first = UUID()
            _ = await a.ask("w", id: first)
            try Self.expectAccepted(await a.answer(first, "approve"))
            let asked = UUID()
            _ = await a.ask("x", id: asked)
            #expect(a.store.ownerCache.question(asked)?.resolution == nil, "the cache holds the pending question")
            #expect(a.store.ownerCache.handles(of: "emma") == [handle("w")])

            try await Self.move(from: a, to: b)
            try Self.expectAccepted(await b.answer(asked, "approve"))

            try await Self.move(from: b, to: a)
            // b's approval is seen: a second answer is refused, and x is not announced again.
            guard case .failure(let refused) = await a.answer(asked, "decline") else {
                Issue.record("a answered a question b had answered: it used what it held before b took the partition")
                return
            }
            #expect(refused.code == .alreadyAnswered)
            let next = UUID()
            _ = await a.ask("x", "y", id: next)
            try Self.expectAccepted(await a.answer(next, "approve"))
            let announced = try await a.store.reading { try $0.events(of: "emma", after: 0, limit: 100) }
                .compactMap { event -> [CommunicationHandle]? in
                    if case .handlesChanged(let added, _) = event.body { return added }
                    return nil
                }
            #expect(announced == [[handle("w")], [handle("x")], [handle("y")]])
        }
    }

    @Test func aCommitInDoubtDropsTheCache() async throws {
        try PostgresTier.require()
        let server = try await PostgresServer.start()
        do {
            let url = PostgresURL(user: server.user, host: "127.0.0.1", port: server.port, database: server.database)
            let a = try await Broker("a", url: url, password: server.password)
            await a.keeper.round()
            let asked = UUID()
            _ = await a.ask("x", id: asked)
            #expect(a.store.ownerCache.question(asked)?.resolution == nil)

            // The answer's commit is stored, but its reply lost: the commit waits for a standby that never comes,
            // and its connection is ended under it (PostgreSQL keeps what it committed locally).
            _ = try await server.query("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
            _ = try await server.query("SELECT pg_reload_conf()")
            let answering = Task { await a.answer(asked, "approve") }
            var ended = false
            for _ in 0..<100 where !ended {
                try await Task.sleep(for: .milliseconds(100))
                ended = try await !server.query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"
                ).isEmpty
            }
            #expect(ended, "the answer's commit waited for the standby")
            _ = try await server.query("ALTER SYSTEM RESET synchronous_standby_names")
            _ = try await server.query("SELECT pg_reload_conf()")
            _ = await answering.value

            #expect(a.store.ownerCache.question(asked) == nil, "the cache forgot what the commit in doubt touched")
            guard case .failure(let refused) = await a.answer(asked, "decline") else {
                Issue.record("a answered again a question whose first answer was stored by a commit in doubt")
                await server.remove()
                return
            }
            #expect(refused.code == .alreadyAnswered)
        } catch {
            await server.remove()
            throw error
        }
        await server.remove()
    }

    /// An owner holds an ask's question to the commit (`HeldQuestions`), and reads nothing for an ask of a child it
    /// knows: the asks of one transaction still count it against the ask limit and find it as the pending question
    /// about the same handles.
    @Test func asksOfOneTransactionSeeTheQuestionsHeldBeforeThem() async throws {
        try await ClusterLeaseTests.withDatabase { url, password in
            var defaults = ChildDefaults.builtIn
            defaults.askLimit = .init(count: 3, perSeconds: 3600)
            let a = try await Broker(
                "a", url: url, password: password, policy: BrokerPolicy(childDefaults: defaults, passcodeCost: 10))
            await a.keeper.round()
            let ids = (0..<5).map { _ in UUID() }
            let asks = zip(ids, ["p", "p", "q", "r", "s"]).map { id, value in
                BrokerRequest(
                    deviceID: "e1", memberID: "emma",
                    command: .ask(app: "com.example.chat", question: question([value], id: id)))
            }
            let outcomes = await a.engine.process(asks).outcomes
            let accepted = outcomes.map { outcome -> UUID? in
                guard case .success(.askAccepted(let asked, nil)) = outcome else { return nil }
                return asked.question.id
            }
            #expect(accepted[0] == ids[0])
            #expect(accepted[1] == ids[0], "the second ask about p gets the first, pending: \(outcomes[1])")
            #expect(accepted[2] == ids[2])
            #expect(accepted[3] == ids[3])
            guard case .failure(let refused) = outcomes[4] else {
                Issue.record("a fourth question in the hour was stored: \(outcomes[4])")
                return
            }
            #expect(refused.code == .rateLimited)
            let stored = try await a.store.reading { reader in try ids.map { try reader.question($0) } }
            #expect(stored.map { $0 != nil } == [true, false, true, true, false])
            // Stored with the lifetime the engine gave them (as the wire's milliseconds), each with its reminder.
            for index in [0, 2, 3] {
                guard case .success(.askAccepted(let asked, nil)) = outcomes[index] else { continue }
                let expiry = try #require(stored[index]?.asked.question.expirationDate)
                #expect(abs(expiry.timeIntervalSince(try #require(asked.question.expirationDate))) < 0.002)
            }
            let due = try await a.store.reading { try $0.dueReminders(at: .distantFuture, limit: 10) }
            #expect(Set(due) == [ids[0], ids[2], ids[3]])
        }
    }

    /// Moves every partition from `old` to `new`: `old`'s leases and heartbeat lapse, and `new` takes them.
    static func move(from old: Broker, to new: Broker) async throws {
        try await new.sql("UPDATE partition_lease SET expires_at = '-infinity'")
        let name = old.ownership.brokerName
        try await new.sql("UPDATE cluster_broker SET heartbeat_at = '-infinity' WHERE name = '\(name)'")
        await new.keeper.round()
        #expect(new.ownership.served.count == 4, "\(new.ownership.brokerName) serves every partition")
    }

    static func expectAccepted(_ outcome: CommandOutcome, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard case .success = outcome else {
            Issue.record("refused: \(outcome)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
    }
}

extension ClusterLeaseTests.Broker {
    /// alice (f1's organizer) answers `id` with `choice`.
    func answer(_ id: UUID, _ choice: String) async -> CommandOutcome {
        let request = BrokerRequest(
            deviceID: "a1", memberID: "alice", command: .answer(questionID: id, choiceID: choice))
        return await engine.process([request]).outcomes[0]
    }

    /// `emma` asks about several handles.
    func ask(_ values: String..., id: UUID) async -> CommandOutcome {
        let request = BrokerRequest(
            deviceID: "e1", memberID: "emma", command: .ask(app: "com.example.chat", question: question(values, id: id))
        )
        return await engine.process([request]).outcomes[0]
    }
}
