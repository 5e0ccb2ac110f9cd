import Foundation
import HearthCore
import HearthFleet
import Testing

@testable import DeclaredAgeRange

/// The anniversary rule through the real daemons, with the broker's controllable clock: a birthday before the
/// anniversary of the first declaration reveals nothing new; on the anniversary the new range is shared.
@Suite("Declared Age Range anniversary across real daemons", .serialized, .tags(.fleet))
struct AgeRangeAnniversaryAcrossDaemonsTests {
    static let app = "com.example.landmarks"

    /// A child who turns 13 in 100 days (UTC), whatever day the test runs.
    static func birthDate() -> String {
        let birthday = Date().addingTimeInterval(100 * 86_400)
        let day = BirthDate.day(of: birthday, in: TimeZone(identifier: "UTC")!)
        // 28 February avoids a leap-day birth date in a common year.
        let safeDay = day.month == 2 && day.day == 29 ? 28 : day.day
        return String(format: "%04d-%02d-%02d", day.year - 13, day.month, safeDay)
    }

    @Test func aBirthdayIsRevealedOnlyOnTheAnniversaryOfTheFirstDeclaration() async throws {
        let family = FleetSpec(families: [
            .init(
                "appleseed",
                members: [
                    .init("alice", role: .organizer, birthDate: "1985-01-01", devices: ["alice-phone"]),
                    .init("kim", role: .child, birthDate: Self.birthDate(), devices: ["kim-tablet"]),
                ])
        ])
        try await Fleet.with(family) { fleet in
            let alice = try await fleet.ageConsole(on: "alice-phone")
            try await alice.setSharing(.always, of: "kim")
            let tablet = fleet.ageRange(Self.app, on: "kim-tablet")

            // The first declaration: 12, so "under 13".
            guard case .sharing(let first) = try await tablet.requestAgeRange(ageGates: 13, 16) else {
                Issue.record("Always Share did not share")
                return
            }
            #expect(first.lowerBound == nil && first.upperBound == 12)

            // 200 days on: kim is 13 since day 100, but the anniversary of the first declaration has not come.
            try fleet.advanceClock(by: .seconds(200 * 86_400))
            guard case .sharing(let beforeAnniversary) = try await tablet.requestAgeRange(ageGates: 13, 16) else {
                Issue.record("Always Share did not share")
                return
            }
            #expect(beforeAnniversary.upperBound == 12, "nothing new before the anniversary")

            // On the anniversary (a year after the first declaration), the new range is revealed.
            try fleet.advanceClock(by: .seconds(166 * 86_400))
            try await fleet.eventually("the new range is shared on the anniversary", timeout: .seconds(15)) {
                guard case .sharing(let range) = try await tablet.requestAgeRange(ageGates: 13, 16) else {
                    return false
                }
                return range.lowerBound == 13 && range.upperBound == 15
            }
            await alice.close()
            await tablet.close()
        }
    }
}
