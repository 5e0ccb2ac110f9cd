import DeclaredAgeRange
import Foundation
import HearthCore
import HearthFleet
import Testing

/// How each member's age was established, from the family file to the app, through the three daemons.
@Suite("Age assurance from the family file, against real daemons", .serialized)
struct AssuranceTests {
    static let bundleID = "com.example.landmarks"

    static func member(
        _ id: String, _ role: MemberRole, born: String, assurance: String?, device: String
    ) -> FleetSpec.Member {
        var member = FleetSpec.Member(id, role: role, birthDate: born, devices: [device])
        member.ageAssurance = assurance
        return member
    }

    /// Every case of Apple's `AgeRangeDeclaration`, each on a member of its own: the family file names seven, and
    /// two members without one get the derived `selfDeclared` and `guardianDeclared`.
    static let cases: [(member: String, assurance: String?, role: MemberRole, expected: String)] = [
        ("ana", "checkedByOtherMethod", .organizer, "checkedByOtherMethod"),
        ("ben", "governmentIDChecked", .adult, "governmentIDChecked"),
        ("cam", "paymentChecked", .adult, "paymentChecked"),
        ("dee", "confirmed", .adult, "confirmed"),
        ("eli", nil, .adult, "selfDeclared"),
        ("fay", "guardianCheckedByOtherMethod", .child, "guardianCheckedByOtherMethod"),
        ("gus", "guardianGovernmentIDChecked", .child, "guardianGovernmentIDChecked"),
        ("hal", "guardianPaymentChecked", .child, "guardianPaymentChecked"),
        ("ivy", nil, .child, "guardianDeclared"),
    ]

    static var spec: FleetSpec {
        var families: [FleetSpec.Family] = []
        let chunks = stride(from: 0, to: cases.count, by: 3).map { Array(cases[$0..<min($0 + 3, cases.count)]) }
        for (index, chunk) in chunks.enumerated() {
            var members = chunk.map { item in
                member(
                    item.member, item.role, born: item.role == .child ? "2014-01-01" : "1985-01-01",
                    assurance: item.assurance, device: item.member + "-device")
            }
            if !members.contains(where: { $0.role == .organizer }) {
                let organizer = "org\(index)"
                members.append(
                    member(organizer, .organizer, born: "1980-01-01", assurance: nil, device: organizer + "-device"))
            }
            families.append(.init("family\(index)", members: members))
        }
        return FleetSpec(families: families)
    }

    @Test func eachAssuranceCaseReachesTheApp() async throws {
        try await Fleet.with(Self.spec) { fleet in
            for item in Self.cases {
                let console = try await fleet.ageConsole(on: item.member + "-device")
                if item.role == .child {
                    let parent = Self.cases.firstIndex { $0.member == item.member }! / 3
                    let organizer = try await fleet.ageConsole(on: "org\(parent)-device")
                    try await organizer.setSharing(.always, of: item.member)
                    await organizer.close()
                } else {
                    try await console.setSharing(.always, of: item.member)
                }
                await console.close()
                let app = LandmarksApp(service: fleet.ageRange(Self.bundleID, on: item.member + "-device"))
                guard case .sharing(let range) = try await app.range(gates: 13, 16) else {
                    Issue.record("\(item.member)'s range was not shared")
                    continue
                }
                #expect(LandmarksApp.assurance(of: range.ageRangeDeclaration) == item.expected, "\(item.member)")
                await app.service.close()
            }
        }
    }

    /// A pushed change carries the assurance too, to a device of protocol 3: the app waiting on an Ask First prompt
    /// gets the outcome with `governmentIDChecked`, and so does a live `updates` iteration, on each of the member's
    /// two devices.
    @Test func pushedOutcomesCarryTheAssurance() async throws {
        var ben = Self.member(
            "ben", .organizer, born: "1985-01-01", assurance: "governmentIDChecked", device: "ben-phone")
        ben.devices.append("ben-tablet")
        try await Fleet.with(FleetSpec(families: [.init("family0", members: [ben])])) { fleet in
            let watcher = fleet.ageRange(Self.bundleID, on: "ben-tablet")
            let pushed = Task {
                for await response in watcher.updates {
                    if case .sharing(let range) = response {
                        return LandmarksApp.assurance(of: range.ageRangeDeclaration)
                    }
                }
                return "ended"
            }
            let app = LandmarksApp(service: fleet.ageRange(Self.bundleID, on: "ben-phone"))
            let asked = Task { @MainActor in try await app.range(gates: 18) }
            let console = try await fleet.ageConsole(on: "ben-tablet")
            let prompt = try await console.waitForPrompt(app: Self.bundleID)
            _ = try await console.answer(prompt.id, share: true)
            guard case .sharing(let range) = try await asked.value else {
                Issue.record("the prompt's outcome was not a range")
                return
            }
            #expect(LandmarksApp.assurance(of: range.ageRangeDeclaration) == "governmentIDChecked")
            // The iteration ends with the service's close: a push that never comes fails the test, not hangs it.
            let deadline = Task {
                try await Task.sleep(for: .seconds(10))
                await watcher.close()
            }
            #expect(await pushed.value == "governmentIDChecked")
            deadline.cancel()
            await console.close()
            await app.service.close()
            await watcher.close()
        }
    }

    /// A broker that restarts forgets what each device negotiated; a device of protocol 3 says hello again on the new
    /// connection, so its answers keep the assurance (and do not drop to who declared until some later hello).
    @Test func aBrokerRestartKeepsADeviceOnProtocolThree() async throws {
        let ben = Self.member(
            "ben", .organizer, born: "1985-01-01", assurance: "governmentIDChecked", device: "ben-phone")
        try await Fleet.with(FleetSpec(families: [.init("family0", members: [ben])])) { fleet in
            let console = try await fleet.ageConsole(on: "ben-phone")
            try await console.setSharing(.always, of: "ben")
            await console.close()
            let app = LandmarksApp(service: fleet.ageRange(Self.bundleID, on: "ben-phone"))
            @MainActor func assurance() async throws -> String {
                guard case .sharing(let range) = try await app.range(gates: 18) else { return "declined" }
                return LandmarksApp.assurance(of: range.ageRangeDeclaration)
            }
            #expect(try await assurance() == "governmentIDChecked")
            try await fleet.restartBroker()
            try await fleet.waitUntilLinked("ben-phone")
            // Past a few of the device's pings (one a second): a device that did not say hello again would still be
            // counted as version 1 by the new broker, and get who declared.
            try await Task.sleep(for: .seconds(3))
            #expect(try await assurance() == "governmentIDChecked", "after the restart")
            await app.service.close()
        }
    }
}
