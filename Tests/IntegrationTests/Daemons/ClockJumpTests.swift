import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import PermissionKit
import Testing

/// The broker's wall clock jumping back and forward (the fleet's clock fault): a question expires at its own
/// expiration date and not before, and sequence numbers follow the order of events, not their timestamps.
@Suite("Clock jumps", .serialized, .tags(.fleet))
struct ClockJumpTests {
    static func question(_ handle: String, expiring: Date? = nil) -> PermissionQuestion<CommunicationTopic> {
        let person = PersonInformation(handle: CommunicationHandle(value: handle, kind: .custom))
        var topic = CommunicationTopic(personInformation: [person])
        topic.actions = [.message]
        let question = PermissionQuestion(communicationTopic: topic)
        question.expirationDate = expiring
        return question
    }

    @Test func jumpsBackAndForthNeitherExpireEarlyNorReorder() async throws {
        try await Fleet.with(DeliveryUnderFaultsTests.family, mode: .inProcess) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = AppResponses(app)
            let alice = try await fleet.parent(on: "alice-phone")
            // Expires in an hour of the broker's time; the clock then goes back 3 h, forward 2 h, forward 1 h 50 min.
            let lasting = Self.question("lasting", expiring: fleet.brokerNow.addingTimeInterval(3600))
            try await app.ask(lasting)
            _ = try await alice.waitForQuestion(lasting.id)
            var others: [UUID] = []
            for (index, jump) in [-3 * 3600, 2 * 3600, 110 * 60].enumerated() {
                try fleet.advanceClock(by: .seconds(jump))
                let other = Self.question("after-jump-\(index)")
                try await app.ask(other)
                _ = try await alice.waitForQuestion(other.id)
                try await alice.approve(other.id)
                others.append(other.id)
            }
            // Ten minutes before its expiration date, as the broker sees it, after a sweep or two.
            try await Task.sleep(for: .milliseconds(2500))
            #expect(try await alice.pending().map(\.question.id) == [lasting.id], "not expired early")
            try await alice.approve(lasting.id)
            let all = others + [lasting.id]
            try await fleet.eventually("every response reaches the app") {
                Set(responses.responses.map(\.question.id)) == Set(all)
            }
            #expect(responses.responses(for: lasting.id).first?.reason == .parentAnswered)

            // Emma's log: sequence numbers 1...n without a gap, in the order things happened, whatever the timestamps.
            let emma = try await RawPeer.device("emma-phone", of: fleet)
            let synced = try await emma.request(.sync(after: 0, limit: 1000), requestID: 1)
            guard case .events(let head, let events) = synced else { throw FleetError("sync was refused: \(synced)") }
            #expect(events.map(\.sequence) == Array(1...head))
            let resolved = events.compactMap { event -> UUID? in
                if case .questionResolved(let asked, _) = event.body { return asked.question.id }
                return nil
            }
            #expect(resolved == all, "resolutions in the order they were made")
            let times = events.map(\.createdAt)
            #expect(zip(times, times.dropFirst()).contains { $0 > $1 }, "the clock went back: some timestamps do too")
            await emma.close()
            responses.cancel()
            await alice.close()
            await app.close()
        }
    }
}
