import Testing

/// Tests/Package.swift, the unit tier, holds every suite of the root that starts no daemon, on the root's own folder,
/// and none that builds a daemon: so `swift test --package-path Tests` stays the fast loop it is documented to be.
@Suite("Unit tier package")
struct UnitPackageTests {
    @Test func everyRootSuiteThatStartsNoDaemonIsInTheUnitPackageOnItsOwnFolder() throws {
        let unit = try UnitPackage.read()
        #expect(unit.unitTier.contains("HearthProtocolTests"), "the root's manifest was read")
        for name in unit.unitTier.sorted() {
            let target = unit.declared[name]
            #expect(target != nil, "\(name) reaches no executable in the root: add it to Tests/Package.swift")
            #expect(target == nil || target?.path == name, "\(name) in Tests/Package.swift is not on Tests/\(name)")
        }
    }

    @Test func noUnitSuiteReachesADaemonOrTheFleet() throws {
        let unit = try UnitPackage.read()
        for (name, target) in unit.declared.sorted(by: { $0.key < $1.key }) {
            #expect(
                unit.reachedByOtherTiers[name] == nil,
                "\(name) needs \(unit.reachedByOtherTiers[name] ?? []) in the root: it is not a unit suite")
            #expect(target.outside.isEmpty, "\(name) in Tests/Package.swift reaches \(target.outside)")
        }
    }
}
