import Foundation
import HearthClient
import HearthCore
import HearthFleet
import PermissionKit
import Testing

/// Apple's `AskError.notAvailable` (iOS 26.2) where it applies: PermissionKit serves children only. A child who comes
/// of age keeps her child-device, and from that day the app's questions, communication and significant-update alike,
/// are refused with `notAvailable` and reach no parent; the day before they were asked as usual.
@Suite("AskError.notAvailable once a child comes of age, against real daemons", .serialized, .tags(.fleet))
struct ComingOfAgeTests {
    static let bundleID = "com.example.chat"

    /// `YYYY-MM-DD` of the day 18 years before tomorrow: the member is 17 today and 18 from tomorrow.
    static var birthDateEighteenTomorrow: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let tomorrow = calendar.date(byAdding: .day, value: 1, to: Date())!
        let born = calendar.date(byAdding: .year, value: -18, to: tomorrow)!
        let parts = calendar.dateComponents([.year, .month, .day], from: born)
        return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
    }

    static var family: FleetSpec {
        FleetSpec(families: [
            .init(
                "appleseed",
                members: [
                    .init("alice", role: .organizer, birthDate: "1985-01-01", devices: ["alice-phone"]),
                    .init("mia", role: .child, birthDate: birthDateEighteenTomorrow, devices: ["mia-tablet"]),
                ])
        ])
    }

    @Test func aChildWhoComesOfAgeGetsNotAvailableAndHerParentsNoQuestion() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = ChatApp(center: AskCenter(fleet.app(Self.bundleID, on: "mia-tablet")))
            let alice = try await fleet.parent(on: "alice-phone")
            let minor = try await app.askToChat(with: "Sam", handle: "sam")
            _ = try await alice.waitForQuestion(minor.id)

            // Two days on (her birthday in every time zone): an adult, on the same device.
            try fleet.advanceClock(by: .seconds(2 * 86_400))
            var refusals: [String] = []
            var asked: [UUID] = []
            do {
                asked.append(try await app.askToChat(with: "Kim", handle: "kim").id)
            } catch { refusals.append(ChatApp.message(for: error)) }
            for flow in ChatApp.flows {
                // A flow that wrongly went ahead would wait for an answer in person: cancelled, it returns `.cancel`.
                let attempt = Task { try await app.askForUpdate("This update adds video calls.", flow: flow).0.id }
                let deadline = Task {
                    try await Task.sleep(for: .seconds(15))
                    attempt.cancel()
                }
                do {
                    asked.append(try await attempt.value)
                } catch { refusals.append(ChatApp.message(for: error)) }
                deadline.cancel()
            }
            #expect(refusals == ["notAvailable", "notAvailable", "notAvailable", "notAvailable"], "\(refusals)")
            #expect(asked.isEmpty)
            #expect(try await alice.pending().map(\.question.id) == [minor.id])
            await alice.close()
            await app.center.communicationLimits.close()
        }
    }
}
