import Foundation

/// What Package.swift declares, as `swift package dump-package` reads it: so that an import works because its module
/// is a dependency of the target, not because a dependency's dependency happens to be built.
extension ModuleRules {
    /// The modules the system or the toolchain provides, which no target declares.
    static let systemModules: Set<String> = [
        "Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch", "Glibc", "Musl", "Darwin",
        "Synchronization", "_Concurrency", "Observation", "RegexBuilder",
    ]

    /// Each target of Sources/ with the names it depends on: its targets' names and other packages' products' (whose
    /// modules these packages name alike).
    static func declaredDependencies() throws -> [String: Set<String>] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        // A scratch path of its own: `swift test`, which runs this, holds the lock on the package's own.
        let json = try run(
            "swift", ["package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package"])
        let package = try JSONDecoder().decode(DumpedPackage.self, from: json)
        var declared: [String: Set<String>] = [:]
        for target in package.targets where target.type != "test" {
            declared[target.name] = Set(target.dependencies.compactMap(\.name))
        }
        return declared
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
