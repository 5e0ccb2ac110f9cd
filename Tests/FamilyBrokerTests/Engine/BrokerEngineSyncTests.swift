import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// `sync`: a slice of the caller's own log, and its head.
@Suite("BrokerEngine sync")
struct BrokerEngineSyncTests {
    /// Nora (no family) gets exactly one event per ask, so `n` asks make her log 1...n.
    private func fillNorasLog(_ broker: BrokerHarness, count: Int) async throws -> [Event] {
        let (replies, events) = try await broker.batch(
            (0..<count).map { n in
                (
                    "n1",
                    MessageCodec.encode(
                        .ask(appBundleID: "com.example.chat", question: question(["h\(n)"])), requestID: UInt64(n))
                )
            })
        #expect(replies.allSatisfy { $0.accepted?.resolution != nil })
        #expect(events.map(\.sequence) == Array(1...UInt64(count)))
        return events
    }

    private func sync(
        _ broker: BrokerHarness, after: UInt64, limit: UInt32, as member: MemberID = "nora"
    ) async throws
        -> (head: UInt64, events: [Event])
    {
        let outcome = try await broker.send(.sync(after: after, limit: limit), from: member)
        #expect(outcome.events.isEmpty)
        return try #require(outcome.reply.eventsReply, "\(outcome.reply)")
    }

    static let slices: [(after: UInt64, limit: UInt32, expected: [UInt64])] = [
        (0, 10, Array(1...10)),
        (0, 3, [1, 2, 3]),
        (2, 2, [3, 4]),
        (7, 100, [8, 9, 10]),
        (9, 1, [10]),
        (10, 5, []),
        (500, 5, []),
        (UInt64.max, 5, []),
        (4, 0, [5]),
    ]

    @Test(arguments: slices)
    func syncReturnsTheSliceAfterAndTheHead(after: UInt64, limit: UInt32, expected: [UInt64]) async throws {
        try await BrokerHarness.with { broker in
            let events = try await fillNorasLog(broker, count: 10)
            let reply = try await sync(broker, after: after, limit: limit)
            #expect(reply.head == 10)
            #expect(reply.events.map(\.sequence) == expected)
            #expect(reply.events == events.filter { expected.contains($0.sequence) })
        }
    }

    @Test(arguments: StorageBackend.all)
    func syncReturnsOnlyTheCallersOwnLog(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            _ = try await fillNorasLog(broker, count: 3)
            _ = try await broker.ask(question(["x"]))
            let emma = try await sync(broker, after: 0, limit: 100, as: "emma")
            #expect(emma.head == 1)
            #expect(emma.events.allSatisfy { $0.memberID == "emma" })
            let carol = try await sync(broker, after: 0, limit: 100, as: "carol")
            #expect(carol.head == 0)
            #expect(carol.events.isEmpty)
            let alice = try await sync(broker, after: 0, limit: 100, as: "alice")
            #expect(alice.events.map(\.memberID) == ["alice"])
        }
    }

    @Test(arguments: StorageBackend.all)
    func syncLimitIsCappedAtOneThousand(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let events = try await fillNorasLog(broker, count: 1005)
            for limit in [UInt32(1000), 1001, 5000, UInt32.max] {
                let reply = try await sync(broker, after: 0, limit: limit)
                #expect(reply.head == 1005)
                #expect(reply.events.count == Int(Wire.maxEventsPerSync), "limit \(limit)")
                #expect(reply.events.first?.sequence == 1)
                #expect(reply.events.last?.sequence == 1000)
            }
            let rest = try await sync(broker, after: 1000, limit: UInt32.max)
            #expect(rest.events == Array(events.suffix(5)))
        }
    }
}
