import Foundation
import HearthCore
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

@Suite("Regions and birth dates")
struct RegionRulesTests {
    static let repositoryRoot = RepositoryRoot.url

    @Test func configFileEqualsTheCompiledInTable() throws {
        let rules = try RegionFile.load(path: Self.repositoryRoot.appendingPathComponent("config/regions.yaml").path)
        #expect(rules == RegionRules.builtIn)
    }

    @Test func subdivisionsFallBackToTheirCountryAndUnknownToTheDefault() {
        let rules = RegionRules.builtIn
        #expect(rules.ageOfMajority(in: "US-AL") == 19)
        #expect(rules.ageOfMajority(in: "us-ca") == 18)
        #expect(rules.ageOfMajority(in: "KR") == 19)
        #expect(rules.ageOfMajority(in: "ZZ") == rules.defaultAgeOfMajority)
        #expect(rules.ageOfMajority(in: nil) == rules.defaultAgeOfMajority)
    }

    @Test func regulatoryFeaturesFollowTheRegionAndTheMembersAge() {
        let rules = RegionRules.builtIn
        let texas = rules.regulatoryFeatures(in: "us-tx")
        #expect(texas.contains(.declaredAgeRangeRequired))
        #expect(
            texas.applying(toMinor: true) == [.declaredAgeRangeRequired, .significantAppChangeRequiresParentalConsent])
        #expect(
            texas.applying(toMinor: false) == [
                .declaredAgeRangeRequired, .significantAppChangeRequiresAdultNotification,
            ])
        #expect(rules.regulatoryFeatures(in: "US-UT") == texas)
        #expect(rules.regulatoryFeatures(in: "US-LA") == texas)
        #expect(rules.regulatoryFeatures(in: "US-CA").isEmpty)
        #expect(rules.regulatoryFeatures(in: "US").isEmpty)
        #expect(rules.regulatoryFeatures(in: "ZZ").isEmpty)
        #expect(rules.regulatoryFeatures(in: nil).isEmpty)
    }

    @Test func aRegionsFileRefusesUnknownFeaturesAndFeaturesWithoutTheirLaw() {
        func key(_ entry: RegionFile.Entry) -> String? {
            do {
                _ = try RegionFile(defaultAgeOfMajority: 18, regions: ["US-TX": entry]).rules(source: "r.yaml")
                return nil
            } catch {
                return (error as? ConfigurationError)?.key
            }
        }
        let unknown = RegionFile.Entry(
            ageOfMajority: 18, source: "x", regulatoryFeatures: ["ageVerified"], regulatorySource: "an act")
        #expect(key(unknown) == "regions.US-TX.regulatoryFeatures")
        let required = "declaredAgeRangeRequired"
        let twice = RegionFile.Entry(
            ageOfMajority: 18, source: "x", regulatoryFeatures: [required, required], regulatorySource: "an act")
        #expect(key(twice) == "regions.US-TX.regulatoryFeatures")
        let noLaw = RegionFile.Entry(ageOfMajority: 18, source: "x", regulatoryFeatures: ["declaredAgeRangeRequired"])
        #expect(key(noLaw) == "regions.US-TX.regulatorySource")
    }

    @Test func aBadRegionsFileNamesTheKey() throws {
        let file = RegionFile(defaultAgeOfMajority: 18, regions: ["US": .init(ageOfMajority: 18, source: " ")])
        #expect(throws: ConfigurationError.self) { try file.rules(source: "r.yaml") }
        do {
            _ = try file.rules(source: "r.yaml")
        } catch let error as ConfigurationError {
            #expect(error.key == "regions.US.source")
        }
        let badCode = RegionFile(defaultAgeOfMajority: 18, regions: ["USA": .init(ageOfMajority: 18, source: "x")])
        #expect(throws: ConfigurationError.self) { try badCode.rules(source: "r.yaml") }
    }

    @Test func ageTurnsOnTheBirthdayInTheMembersTimeZone() throws {
        let birth = try #require(BirthDate("2012-06-21"))
        let utc = TimeZone(identifier: "UTC")!
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!
        // 2025-06-20 20:00 UTC is already 2025-06-21 in Tokyo.
        let evening = Date(timeIntervalSince1970: 1_750_449_600)
        #expect(birth.age(on: evening, in: utc) == 12)
        #expect(birth.age(on: evening, in: tokyo) == 13)
    }

    @Test func leapDayBirthdaysFallOnTheFirstOfMarchInCommonYears() throws {
        let birth = try #require(BirthDate("2008-02-29"))
        let utc = TimeZone(identifier: "UTC")!
        func date(_ text: String) -> Date {
            let f = ISO8601DateFormatter()
            return f.date(from: text + "T12:00:00Z")!
        }
        #expect(birth.age(on: date("2026-02-28"), in: utc) == 17)
        #expect(birth.age(on: date("2026-03-01"), in: utc) == 18)
        #expect(birth.age(on: date("2028-02-29"), in: utc) == 20)
    }

    @Test func birthDatesMustBeRealDays() {
        #expect(BirthDate("2015-02-29") == nil)
        #expect(BirthDate("2016-02-29") != nil)
        #expect(BirthDate("2016-13-01") == nil)
        #expect(BirthDate("16-01-01") == nil)
        #expect(BirthDate("1899-01-01") == nil)
        #expect(BirthDate("2016-1-1") == nil)
    }
}
