import Foundation
import HearthCore
import HearthFleet
import PermissionKit
import Testing

/// A child device that comes back with more queued questions than its command rate allows keeps them: `rateLimited`
/// on a queued question is a refusal of the moment, so the outbox sends it again later. Such questions, already
/// accepted for the app, used to be dropped without a word.
@Suite("Queued asks past the device's command rate", .serialized, .tags(.fleet))
struct RateLimitedAskTests {
    @Test func everyQueuedQuestionStillReachesTheParent() async throws {
        // Two commands a second with a burst of ten: sixteen queued asks sent on relinking go past it. (The device's
        // pings, one a second, have their own allowance: `GateTests.pingsHaveTheirOwnAllowanceAndNeverTakeTheCommands`.)
        try await Fleet.with(ParentNotificationTests.family, brokerArguments: ["--device-rate", "2"]) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            try await fleet.cut("emma-tablet")
            let questions = (0..<16).map { ParentNotificationTests.question("friend-\($0)") }
            for question in questions { try await app.ask(question) }
            try fleet.restore("emma-tablet")
            let parent = try await fleet.parent(on: "alice-phone")
            do {
                for question in questions {
                    _ = try await parent.waitForQuestion(question.id, timeout: .seconds(60))
                }
            } catch {
                throw FleetError("\(error)", logs: try fleet.daemon("emma-tablet").recentLog(lines: 60))
            }
            #expect(try await parent.pending().count == questions.count)
            await app.close()
        }
    }
}
