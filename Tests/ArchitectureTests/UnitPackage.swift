import Foundation

/// The unit tier's package, Tests/Package.swift, beside the root's manifest: which of the root's test targets start no
/// daemon, and what the unit package declares for them.
struct UnitPackage {
    /// The root's test targets that reach, through the root's targets, no executable and neither the fleet
    /// (HearthFleet, which starts daemons) nor the load generator's library (HearthLoad).
    var unitTier: Set<String>
    /// What the root's test targets reach that only the other tiers may.
    var reachedByOtherTiers: [String: Set<String>]
    /// Each target of Tests/Package.swift: its folder, and what it reaches through the root's products it names that
    /// only the other tiers may (an executable, the fleet, the load generator).
    var declared: [String: (path: String?, outside: Set<String>)]

    /// Modules a unit suite must not build: the daemons, the tools and what starts them.
    static let forbidden: Set<String> = ["HearthFleet", "HearthLoad"]

    static func read() throws -> UnitPackage {
        let root = try dump("")
        let unit = try dump("Tests")
        let executables = Set(root.targets.filter { $0.type == "executable" }.map(\.name))
        let reach = root.reach
        var unitTier: Set<String> = []
        var others: [String: Set<String>] = [:]
        for test in root.targets where test.type == "test" {
            let outside = reach([test.name]).intersection(executables.union(forbidden))
            if outside.isEmpty { unitTier.insert(test.name) } else { others[test.name] = outside }
        }
        let products = Dictionary(uniqueKeysWithValues: root.products.map { ($0.name, $0.targets) })
        let rootIdentity = ModuleRules.root.lastPathComponent.lowercased()
        var declared: [String: (path: String?, outside: Set<String>)] = [:]
        for target in unit.targets {
            let named = target.dependencies.filter { $0.package?.lowercased() == rootIdentity }
            let reached = reach(named.flatMap { products[$0.name] ?? [$0.name] })
            declared[target.name] = (target.path, reached.intersection(executables.union(forbidden)))
        }
        return UnitPackage(unitTier: unitTier, reachedByOtherTiers: others, declared: declared)
    }

    /// A manifest of this repository (`""` the root's, `"Tests"` the unit tier's) as dump-package reads it.
    static func dump(_ folder: String) throws -> Manifest { try ModuleRules.dumped(folder, as: Manifest.self) }

    /// The part of dump-package's JSON read here.
    struct Manifest: Decodable {
        var products: [Product]
        var targets: [Target]

        /// The targets of this package that `names` reach through its own targets' dependencies (whatever the
        /// condition: a trait's dependency counts), `names` included.
        func reach(_ names: [String]) -> Set<String> {
            let targets = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
            var seen: Set<String> = []
            var next = names
            while let name = next.popLast() {
                guard let target = targets[name], seen.insert(name).inserted else { continue }
                next += target.dependencies.filter { $0.package == nil }.map(\.name)
            }
            return seen
        }

        struct Product: Decodable {
            var name: String
            var targets: [String]
        }

        struct Target: Decodable {
            var name: String
            var type: String
            var path: String?
            var dependencies: [Dependency]
        }

        /// `{"byName": [name, condition]}`, `{"target": [name, ...]}` or `{"product": [name, package, ...]}`: a
        /// product names its package.
        struct Dependency: Decodable {
            var name: String
            var package: String?

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: Key.self)
                let key = [Key.byName, .target, .product].first { container.contains($0) } ?? .byName
                var list = try container.nestedUnkeyedContainer(forKey: key)
                name = try list.decode(String.self)
                package = key == .product ? try list.decodeIfPresent(String.self) : nil
            }

            enum Key: String, CodingKey {
                case byName, target, product
            }
        }
    }
}
