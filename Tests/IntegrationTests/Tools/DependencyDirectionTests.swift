import Foundation
import HearthFleet
import Testing

/// Dependencies point inward: the shipped command-line tool links what a client needs, not the test kit, the broker
/// or the daemons' service code (ops endpoint, metrics, lifecycle).
@Suite("Dependency direction")
struct DependencyDirectionTests {
    /// The Swift modules whose symbols are in `binary`, among `modules` (symbols carry their module's mangled name).
    static func linkedModules(_ binary: String, among modules: [String]) async throws -> Set<String> {
        let (status, symbols) = try await ExecutableRun.run(path: "/usr/bin/nm", [binary], timeout: .seconds(120))
        try #require(status == 0, "nm \(binary) failed")
        return Set(modules.filter { symbols.contains("\($0.utf8.count)\($0)") })
    }

    @Test func hearthctlLinksNeitherTheFleetNorTheBrokerNorTheServiceCode() async throws {
        let directory = try BinaryLocator.directory()
        let modules = [
            "HearthFleet", "FamilyBroker", "HearthService", "ServiceLifecycle", "HearthClient", "PermissionKit",
        ]
        let hearthctl = try await Self.linkedModules(directory + "/hearthctl", among: modules)
        #expect(hearthctl == ["HearthClient", "PermissionKit"])
        // The check can see a linked module: hearth-fleet is built on the fleet.
        let fleet = try await Self.linkedModules(directory + "/hearth-fleet", among: modules)
        #expect(fleet.contains("HearthFleet"))
    }
}
