import Foundation
import HearthCore

/// What Declared Age Range needs to know about a member, read from the directory in one place.
struct AgeRangeSubject {
    var id: MemberID
    var familyID: FamilyID?
    var birthDate: BirthDate?
    var region: String?
    var timeZone: TimeZone
    var isChild: Bool
    var limitsEnabled: Bool

    init(_ member: Directory.Member) {
        id = member.id
        familyID = member.familyID
        birthDate = member.birthDate.flatMap { BirthDate($0) }
        region = member.region
        // The directory records no time zone yet: days are counted in UTC.
        timeZone = TimeZone(identifier: "UTC")!
        isChild = member.role == .child
        limitsEnabled = member.limitsEnabled
    }

    /// The calendar day `date` falls on for this member.
    func day(of date: Date) -> BirthDate { BirthDate(dayOf: date, in: timeZone) }

    /// The range this member reveals for `gates`, with the age they had on `day`.
    func range(on day: BirthDate, gates: [Int], regions: RegionRules) -> DeclaredRange? {
        guard let birthDate else { return nil }
        return AgeRangeRules.range(
            age: birthDate.age(onDay: day), gates: gates, ageOfMajority: regions.ageOfMajority(in: region),
            inFamily: familyID != nil, communicationLimitsOn: isChild && familyID != nil && limitsEnabled)
    }
}
