import Foundation
import HearthCore

/// What Declared Age Range needs to know about a member on the day of a request, read from the directory in one place.
struct AgeRangeSubject {
    var id: MemberID
    var familyID: FamilyID?
    var birthDate: BirthDate?
    var region: String?
    var timeZone: TimeZone
    var isChild: Bool
    var ageOfMajority: Int
    /// Communication Limits are on for this member (a child in a family whose limits are enabled).
    var limitsOn: Bool
    /// The member's region requires a parent's consent to an app's significant change, and the member is a minor.
    var consentRequired: Bool
    /// How the family file says the age was established; nil: who declared it, derived from the age and family.
    var assurance: AgeDeclaration?

    init(_ member: Directory.Member, directory: Directory, on date: Date, limitsEnabled: Bool) {
        id = member.id
        familyID = member.familyID
        birthDate = member.birthDate
        region = member.region
        timeZone = member.timeZone
        isChild = directory.isChild(member, on: date)
        ageOfMajority = directory.rules.ageOfMajority(in: member.region)
        limitsOn = isChild && member.familyID != nil && limitsEnabled
        assurance = member.ageAssurance
        consentRequired = directory.rules.regulatoryFeatures(in: member.region).applying(toMinor: isChild)
            .contains(.significantAppChangeRequiresParentalConsent)
    }

    /// The calendar day `date` falls on for this member.
    func day(of date: Date) -> BirthDate { BirthDate(dayOf: date, in: timeZone) }

    /// The range this member reveals for `gates`, with the age they had on `day`.
    func range(on day: BirthDate, gates: [Int]) -> DeclaredRange? {
        guard let birthDate else { return nil }
        var range = AgeRangeRules.range(
            age: birthDate.age(onDay: day), gates: gates, ageOfMajority: ageOfMajority, inFamily: familyID != nil,
            communicationLimitsOn: limitsOn, significantChangeApprovalRequired: consentRequired)
        if let assurance { range.declaration = assurance }
        return range
    }
}
