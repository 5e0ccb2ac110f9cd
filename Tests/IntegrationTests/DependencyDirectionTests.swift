import Foundation
import HearthFleet
import Testing

/// Dependencies point inward: the shipped command-line tool links what a client needs, not the test kit or the broker.
@Suite("Dependency direction")
struct DependencyDirectionTests {
    /// The Swift modules whose symbols are in `binary`, among `modules` (symbols carry their module's mangled name).
    static func linkedModules(_ binary: String, among modules: [String]) throws -> Set<String> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
        process.arguments = [binary]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let symbols = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Set(modules.filter { symbols.contains("\($0.utf8.count)\($0)") })
    }

    @Test func hearthctlLinksNeitherTheFleetNorTheBroker() throws {
        let directory = try BinaryLocator.directory()
        let modules = ["HearthFleet", "FamilyBroker", "HearthClient", "PermissionKit"]
        let hearthctl = try Self.linkedModules(directory + "/hearthctl", among: modules)
        #expect(hearthctl == ["HearthClient", "PermissionKit"])
        // The check can see a linked module: hearth-fleet is built on the fleet.
        #expect(try Self.linkedModules(directory + "/hearth-fleet", among: modules).contains("HearthFleet"))
    }
}
