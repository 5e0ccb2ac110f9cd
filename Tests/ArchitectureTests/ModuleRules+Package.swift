import Foundation

/// What Package.swift declares, as `swift package dump-package` reads it: so that an import works because its module
/// is a dependency of the target, not because a dependency's dependency happens to be built.
extension ModuleRules {
    /// The modules the system or the toolchain provides, which no target declares.
    static let systemModules: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch", "Glibc", "Musl", "Darwin",
        "Synchronization", "_Concurrency", "Observation", "RegexBuilder",
    ]

    /// The modules the toolchain gives a test target, which no manifest declares.
    static let testModules: Set<String> = ["Testing", "XCTest"]

    /// Each target of Sources/ with the names it depends on: its targets' names and other packages' products' (whose
    /// modules these packages name alike).
    static func declaredDependencies() throws -> [String: Set<String>] {
        var declared: [String: Set<String>] = [:]
        for target in try dumped("").targets where target.type != "test" {
            declared[target.name] = Set(target.dependencies.compactMap(\.name))
        }
        return declared
    }

    /// A target whose files' imports are held to what its manifest declares: each module of Sources/, and each test
    /// target of the root's manifest and of the unit tier's (Tests/Package.swift), which compile the same folders.
    struct CheckedTarget {
        var name: String
        /// The manifest that declares it, from the repository's root: `Package.swift` or `Tests/Package.swift`.
        var manifest: String
        /// Its folder, from the repository's root.
        var folder: String
        var declared: Set<String>
        /// The executables it declares so that they are built for it to start, not imported.
        var executables: Set<String>
    }

    /// The root's targets in `Sources/`, then the test targets of the root's and the unit tier's manifests.
    static func checkedTargets() throws -> [CheckedTarget] {
        let root = try dumped("")
        let executables = Set(root.targets.filter { $0.type == "executable" }.map(\.name))
        var checked: [CheckedTarget] = []
        for (manifest, package) in [("", root), ("Tests/", try dumped("Tests"))] {
            for target in package.targets where target.type == "test" || manifest.isEmpty {
                let declared = Set(target.dependencies.compactMap(\.name))
                let folder = manifest + (target.path ?? (target.type == "test" ? "Tests/" : "Sources/") + target.name)
                checked.append(
                    CheckedTarget(
                        name: target.name, manifest: manifest + "Package.swift", folder: folder, declared: declared,
                        executables: declared.intersection(executables)))
            }
        }
        return checked
    }

    /// The manifest in `folder` (from the repository's root) as `swift package dump-package` reads it, decoded as
    /// the part of its JSON a rule reads.
    static func dumped<Package: Decodable>(
        _ folder: String, as type: Package.Type = DumpedPackage.self
    ) throws -> Package {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A scratch path of its own: `swift test`, which runs this, holds the lock on the package's own.
        let json = try run(
            "swift",
            [
                "package", "--package-path", root.appendingPathComponent(folder).path, "--scratch-path", scratch.path,
                "dump-package",
            ])
        return try JSONDecoder().decode(type, from: json)
    }

    static func run(_ command: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw RulesError.commandFailed("\(command) \(arguments)") }
        return data
    }

    /// The part of dump-package's JSON read here.
    struct DumpedPackage: Decodable {
        var targets: [Target]

        struct Target: Decodable {
            var name: String
            var type: String
            /// Its folder from the package's, when the manifest gives one (`path:`).
            var path: String?
            var dependencies: [Dependency]
        }

        /// `{"byName": [name, condition]}`, `{"target": [...]}` or `{"product": [name, package, ...]}`.
        struct Dependency: Decodable {
            var name: String?

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                for key in [Key.byName, .target, .product] where container.contains(key) {
                    var list = try container.nestedUnkeyedContainer(forKey: key)
                    name = try list.decode(String.self)
                    return
                }
            }

            enum Key: String, CodingKey {
                case byName, target, product
            }
        }
    }
}
