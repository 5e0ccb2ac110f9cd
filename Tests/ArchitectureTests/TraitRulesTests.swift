import Foundation
import Testing

/// CI builds the broker with the `PostgreSQL` trait only (its fuzz build, the one without, stops at the SQLite
/// store): what would break the broker's build without it is a file of `Sources/` that names the trait's types outside
/// `#if PostgreSQL`, or imports postgres-nio there. Read here from the sources instead of a second build of the broker.
@Suite("Trait rules")
struct TraitRulesTests {
    @Test func whatOnlyThePostgreSQLTraitBuildsIsNamedUnderItsCondition() throws {
        let rules = try TraitRules.read()
        #expect(rules.traitOnlyTypes.isSuperset(of: ["PostgresStore", "BrokerCluster"]), "BrokerPostgres was read")
        #expect(
            rules.traitOnlyTypes.isDisjoint(with: ["StoreLocation", "Settings"]), "\(rules.traitOnlyTypes.sorted())")
        for file in try TraitRules.swiftFiles(in: "Sources") {
            // BrokerPostgres names its own types anywhere its file is under the trait, but postgres-nio only there.
            let named =
                file.hasPrefix("Sources/BrokerPostgres/")
                ? ["PostgresNIO"] : rules.traitOnlyTypes.union(["PostgresNIO"])
            let lines = try TraitRules.lines(of: file)
            let underTrait = TraitRules.traitLines(lines)
            for (index, line) in lines.enumerated() where !underTrait[index] {
                let strays = Set(TraitRules.identifiers(RoomRules.strippedLine(line))).intersection(named)
                #expect(strays.isEmpty, "\(file):\(index + 1) names \(strays.sorted()) outside #if PostgreSQL")
            }
        }
    }

    @Test func theConditionIsFollowedThroughNestingAndElse() {
        let lines = [
            "#if PostgreSQL", "a", "#if os(Linux)", "b", "#endif", "#else", "c", "#endif", "#if PostgreSQL && DEBUG",
            "d", "#elseif DEBUG", "e", "#endif", "#if !PostgreSQL", "f", "#endif",
        ]
        // The lines of code (one letter each) with whether they need the trait.
        let under = Dictionary(
            uniqueKeysWithValues: zip(lines, TraitRules.traitLines(lines)).filter { $0.0.count == 1 })
        #expect(under["a"] == true && under["b"] == true && under["d"] == true)
        #expect(under["c"] == false && under["e"] == false && under["f"] == false)
    }

    @Test func namesInCommentsAndStringsDoNotCount() {
        #expect(
            RoomRules.strippedLine("let x = PostgresStore.open() // not PostgresNIO") == "let x = PostgresStore.open() "
        )
        #expect(!RoomRules.strippedLine(#"log("no \"PostgresStore\" here")"#).contains("PostgresStore"))
        #expect(TraitRules.declaredTypes("package final class PostgresStore: Sendable {") == ["PostgresStore"])
        #expect(TraitRules.declaredTypes("    struct Settings {") == ["Settings"])
    }
}
