import Testing

/// docs/ARCHITECTURE.md's module table is what `Sources/` imports: a forbidden import fails here.
@Suite("Module rules")
struct ModuleRulesTests {
    @Test func everyImportInSourcesIsOneTheTableAllows() throws {
        let rules = try ModuleRules.fromArchitecture()
        let repositoryModules = Set(try ModuleRules.sourceModules())
        for module in repositoryModules.sorted() {
            let allowed = rules.allowed[module] ?? []
            for (imported, file) in try ModuleRules.imports(of: module)
            where repositoryModules.contains(imported) && imported != module {
                #expect(
                    allowed.contains(imported),
                    "\(file) imports \(imported), which ARCHITECTURE.md's table does not allow \(module)")
            }
        }
    }

    /// The doc and the tree agree: a new module gets a row (and so a rule), and a row names a module that exists
    /// and imports only modules that exist.
    @Test func theTableHasARowForEachModuleOfSourcesAndNoOther() throws {
        let rules = try ModuleRules.fromArchitecture()
        let modules = Set(try ModuleRules.sourceModules())
        #expect(Set(rules.allowed.keys) == modules)
        for (module, allowed) in rules.allowed {
            #expect(allowed.isSubset(of: modules), "\(module)'s row names \(allowed.subtracting(modules))")
        }
    }

    /// The table holds the paragraph above it: the rules kept in this test, so that a row cannot be loosened alone.
    @Test func theTableKeepsTheDirectionTheDocStates() throws {
        let allowed = try ModuleRules.fromArchitecture().allowed
        let inward = ["HearthCore", "HearthProtocol", "HearthTransport", "ZeroMQ", "CZeroMQ"]
        let apps = ["PermissionKit", "DeclaredAgeRange", "ParentKit", "HearthClient"]
        for module in inward + apps + ["HearthService"] {
            #expect(
                allowed[module, default: []].isSubset(of: Set(inward + ["CSpawn"])), "\(module) imports inward only")
        }
        #expect(!allowed["FamilyBroker", default: []].contains("DeviceRuntime"))
        #expect(!allowed["DeviceRuntime", default: []].contains("FamilyBroker"))
        // The broker's engine core is inward of the broker: it imports the domain, the protocol and libsodium's scrypt,
        // nothing else of this repository (not the transport, the daemons' services or the broker's other modules).
        #expect(allowed["BrokerCore", default: []].isSubset(of: ["CSodium", "HearthCore", "HearthProtocol"]))
        #expect(allowed["FamilyBroker", default: []].contains("BrokerCore"))
        // Its stores import it and not the service; the SQLite store knows nothing of PostgreSQL's, nor of sockets.
        #expect(allowed["BrokerSQLite", default: []].isSubset(of: ["BrokerCore", "HearthCore", "HearthProtocol"]))
        #expect(!allowed["BrokerPostgres", default: []].contains("FamilyBroker"))
        // Nor the PostgreSQL store of SQLite's: what both stores write alike is BrokerCore's (`Stored`'s encodings).
        #expect(!allowed["BrokerPostgres", default: []].contains("BrokerSQLite"))
        let fleetUsers = allowed.filter { $0.value.contains("HearthFleet") }.keys
        #expect(Set(fleetUsers) == ["HearthLoad", "hearth-fleet", "hearth-loadtest"])
        // The test kit's hooks reach the broker through the lab's build only, never the shipped one.
        let labUsers = allowed.filter { $0.value.contains("HearthLab") }.keys
        #expect(Set(labUsers) == ["HearthFleet", "family-broker-lab"])
        #expect(
            allowed["hearthctl", default: []].isDisjoint(with: [
                "HearthFleet", "FamilyBroker", "DeviceRuntime", "HearthService",
            ]))
    }

    /// An import works because its manifest makes its module a dependency of the target, not because another
    /// dependency brings it into the build: in `Sources/`, and in the test targets of both manifests that compile
    /// `Tests/` (the root's, and the unit tier's, where a suite's build holds only what it declares).
    @Test func everyImportIsADependencyItsManifestDeclares() throws {
        let targets = try ModuleRules.checkedTargets()
        #expect(targets.contains { $0.manifest == "Tests/Package.swift" }, "the unit tier's manifest was read")
        for target in targets {
            let allowed = target.declared.union(ModuleRules.systemModules).union(ModuleRules.testModules)
                .union([target.name])
            for (imported, file) in try ModuleRules.imports(inFolder: target.folder) where !allowed.contains(imported) {
                Issue.record(
                    "\(file) imports \(imported), which is not a dependency of \(target.name) in \(target.manifest)")
            }
        }
    }

    /// The other way round: a target declares only what its files import (or, for a test target, an executable it
    /// starts), so a manifest's lists say what each module uses and a build of one product compiles nothing it does
    /// not need (a dependency left behind when the code that used it moved fails here).
    @Test func everyDependencyItsManifestDeclaresIsImported() throws {
        for target in try ModuleRules.checkedTargets() {
            let imported = Set(try ModuleRules.imports(inFolder: target.folder).map(\.module))
            for dependency in target.declared.subtracting(imported).subtracting(target.executables).sorted() {
                Issue.record(
                    "\(target.name) declares \(dependency) in \(target.manifest), and none of its files imports it")
            }
        }
    }

    /// The broker's engine core links no store, socket or I/O code, its SQLite store no PostgreSQL, NIO or ZeroMQ,
    /// and its PostgreSQL store neither SQLite nor the SQLite store: with the test above, an `import GRDB` (or
    /// PostgresNIO, NIO, ZeroMQ) in `Sources/BrokerCore` fails, undeclared, and declaring it fails here.
    @Test func theBrokerCoreDependsOnNoStoreSocketOrNIO() throws {
        let declared = try ModuleRules.declaredDependencies()
        let service: Set<String> = ["HearthTransport", "HearthService", "FamilyBroker", "ServiceLifecycle"]
        let postgres: Set<String> = ["PostgresNIO", "NIOCore", "NIOPosix", "NIOHTTP1", "BrokerPostgres"]
        let forbidden: [String: Set<String>] = [
            "BrokerCore": service.union(postgres).union(["GRDB", "GRDBSQLite", "ZeroMQ", "CZeroMQ", "BrokerSQLite"]),
            // Nor sockets: the fuzz build of the store compiles no libzmq binding.
            "BrokerSQLite": service.union(postgres).union(["ZeroMQ", "CZeroMQ"]),
            "BrokerPostgres": ["GRDB", "GRDBSQLite", "BrokerSQLite", "FamilyBroker"],
        ]
        for (module, forbidden) in forbidden {
            let dependencies = declared[module]
            #expect(dependencies != nil, "Package.swift has no target \(module)")
            #expect(dependencies?.isDisjoint(with: forbidden) == true, "\(module): \(dependencies ?? [])")
        }
    }

    @Test func importLinesAreReadWithTheirAttributesAndKinds() {
        #expect(ModuleRules.importedModule("import HearthCore") == "HearthCore")
        #expect(ModuleRules.importedModule("@testable import FamilyBroker") == "FamilyBroker")
        #expect(ModuleRules.importedModule("    package import struct NIOCore.ByteBuffer") == "NIOCore")
        #expect(ModuleRules.importedModule("@preconcurrency internal import GRDB") == "GRDB")
        #expect(ModuleRules.importedModule("// import FamilyBroker") == nil)
        #expect(ModuleRules.importedModule("let imported = 1") == nil)
        // Python in a test's string literal.
        #expect(ModuleRules.importedModule("    import os, pty, select, sys, time") == nil)
    }
}
