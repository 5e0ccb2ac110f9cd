import Foundation
import Testing

/// The broker fuzzer's sanitized release build (`deploy/fuzz broker`, CI's longest step after the root's build)
/// compiles what its target depends on: the engine with its intake and the SQLite store, not FamilyBroker's graph
/// (SwiftNIO, swift-configuration, ServiceLifecycle, Prometheus through HearthService).
@Suite("Fuzz package")
struct FuzzPackageTests {
    static let brokerFuzzerModules: Set<String> = ["BrokerCore", "BrokerSQLite", "HearthCore", "HearthProtocol"]

    @Test func theBrokerFuzzerImportsOnlyTheEngineAndTheSQLiteStoreOfThisRepository() throws {
        let repositoryModules = Set(try ModuleRules.sourceModules())
        let folder = ModuleRules.root.appendingPathComponent("Fuzz/Sources/BrokerCommandFuzzer")
        var imported: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            imported.formUnion(text.split(separator: "\n").compactMap { ModuleRules.importedModule(String($0)) })
        }
        let strays = imported.intersection(repositoryModules).subtracting(Self.brokerFuzzerModules)
        #expect(strays.isEmpty, "BrokerCommandFuzzer imports \(strays.sorted())")
        #expect(imported.contains("BrokerCore"))
    }

    /// The modules it tests reach no socket library through the root's targets: the fuzz build compiles no ZeroMQ.
    @Test func theBrokerFuzzerBuildsNoZeroMQ() throws {
        let root = try UnitPackage.dump("")
        let reached = root.reach(Array(Self.brokerFuzzerModules))
        #expect(reached.isSuperset(of: Self.brokerFuzzerModules), "the root's manifest was read")
        #expect(reached.isDisjoint(with: ["ZeroMQ", "CZeroMQ"]), "the broker fuzzer reaches \(reached.sorted())")
    }

    @Test func theFuzzManifestDeclaresNoOtherModuleOfThisRepository() throws {
        let manifest = try String(
            contentsOf: ModuleRules.root.appendingPathComponent("Fuzz/Package.swift"), encoding: .utf8)
        let declared = manifest.split(separator: "\n").compactMap { line -> String? in
            guard line.contains(".product(name: \""), line.contains("package: hearth") else { return nil }
            return line.split(separator: "\"").dropFirst().first.map(String.init)
        }
        #expect(Set(declared) == Self.brokerFuzzerModules, "Fuzz/Package.swift names \(declared.sorted())")
    }
}
