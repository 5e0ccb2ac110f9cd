import DeclaredAgeRange
import Foundation
import HearthCore
import HearthFleet
import Testing

/// `requiredRegulatoryFeatures` and `isEligibleForAgeFeatures` through the three daemons: the broker reads them from
/// its region rules (Texas's app store accountability act; nothing in California), split by the member's age.
@Suite("Regulatory features by region, against real daemons", .serialized)
struct RegulatoryFeaturesTests {
    static let bundleID = "com.example.landmarks"
    static let family = FleetSpec(families: [
        .init(
            "lonestar",
            members: [
                .init("alice", role: .organizer, birthDate: "1985-01-01", region: "US-TX", devices: ["alice-phone"]),
                .init("emma", role: .child, birthDate: "2014-01-01", region: "US-TX", devices: ["emma-tablet"]),
                .init("liam", role: .child, birthDate: "2013-01-01", region: "US-CA", devices: ["liam-tablet"]),
                .init("carol", role: .adult, birthDate: "1960-01-01", region: "US-CA", devices: ["carol-laptop"]),
            ])
    ])

    @available(*, deprecated, message: "exercises the deprecated API on purpose")
    @Test func aRegionWhoseLawRequiresThemReportsThemAndOneWithoutReportsNone() async throws {
        try await Fleet.with(Self.family) { fleet in
            let emma = LandmarksApp(service: fleet.ageRange(Self.bundleID, on: "emma-tablet"))
            let child = try await emma.regulatoryNeeds()
            #expect(child.eligible)
            #expect(child.features == [.declaredAgeRangeRequired, .significantAppChangeRequiresParentalConsent])

            let alice = LandmarksApp(service: fleet.ageRange(Self.bundleID, on: "alice-phone"))
            let adult = try await alice.regulatoryNeeds()
            #expect(adult.eligible)
            #expect(adult.features == [.declaredAgeRangeRequired, .significantAppChangeRequiresAdultNotification])

            for device in ["liam-tablet", "carol-laptop"] {
                let app = LandmarksApp(service: fleet.ageRange(Self.bundleID, on: device))
                let none = try await app.regulatoryNeeds()
                #expect(!none.eligible && none.features.isEmpty, "\(device)")
            }

            // The 26.2 signal in the range itself: a parent's consent is required for emma, not for liam.
            let console = try await fleet.ageConsole(on: "alice-phone")
            try await console.setSharing(.always, of: "emma")
            try await console.setSharing(.always, of: "liam")
            guard case .sharing(let texan) = try await emma.range(gates: 13, 16) else {
                Issue.record("emma's range was not shared")
                return
            }
            #expect(LandmarksApp.controls(texan.activeParentalControls).approval)
            let liam = LandmarksApp(service: fleet.ageRange(Self.bundleID, on: "liam-tablet"))
            guard case .sharing(let californian) = try await liam.range(gates: 13, 16) else {
                Issue.record("liam's range was not shared")
                return
            }
            #expect(!LandmarksApp.controls(californian.activeParentalControls).approval)
            await console.close()

            // Without a broker the daemon cannot say: Apple's `network`.
            await fleet.currentBroker.stop()
            try await fleet.eventually("emma's tablet notices") { try await !fleet.status(of: "emma-tablet").linked }
            do {
                _ = try await emma.regulatoryNeeds()
                Issue.record("regulatory features without a broker")
            } catch { #expect(LandmarksApp.message(for: error) == "network") }
        }
    }
}
