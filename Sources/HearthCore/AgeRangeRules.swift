import Foundation

/// Declared Age Range arithmetic: which gates are valid, which range an age falls in, who declared it, and when new
/// information may be revealed. Pure functions; the broker applies them with the member's birth date, region and time
/// zone on the day of the request.
public enum AgeRangeRules {
    /// The smallest and largest gate an app may name.
    public static let gateLimits = 2...99
    /// Children under this age are always `guardianDeclared` (Apple: children under 13 are in a family).
    public static let childAge = 13

    /// Checks an app's gates: 1 to 3, within `gateLimits`, strictly ascending, every range at least 2 years wide.
    /// The check does not depend on the user, so a request is valid or not for everyone.
    public static func validate(_ gates: [Int]) throws(AgeGateViolation) {
        guard (1...3).contains(gates.count) else { throw .gateCount(gates.count) }
        for gate in gates where !gateLimits.contains(gate) { throw .gateOutOfRange(gate) }
        for (a, b) in zip(gates, gates.dropFirst()) where b <= a { throw .notAscending(gates) }
        // Ranges: 0...g1-1, g1...g2-1, ..., gn and over (open, so never too narrow).
        var lower: Int?
        for gate in gates {
            let width = gate - (lower ?? 0)
            if width < 2 { throw .rangeTooNarrow(lower: lower, upper: gate - 1) }
            lower = gate
        }
    }

    /// The gates that apply in a region: a gate at or above the age of majority becomes the age of majority itself
    /// (nothing beyond adulthood is revealed); it is dropped when that would leave a range under 2 years, or repeat.
    public static func effectiveGates(_ gates: [Int], ageOfMajority: Int) -> [Int] {
        let below = gates.filter { $0 < ageOfMajority }
        guard below.count < gates.count else { return gates }
        if let last = below.last, ageOfMajority - last < 2 { return below }
        return below + [ageOfMajority]
    }

    /// The range `age` falls in, upper bound = next gate minus one. `gates` must be valid and effective.
    public static func bounds(age: Int, gates: [Int]) -> (lower: Int?, upper: Int?) {
        var lower: Int?
        for gate in gates {
            if age < gate { return (lower, gate - 1) }
            lower = gate
        }
        return (lower, nil)
    }

    /// Apple's rule: adults self-declare; children under 13 and teens in a family are guardian-declared; teens in no
    /// family self-declare.
    public static func declaration(age: Int, ageOfMajority: Int, inFamily: Bool) -> AgeDeclaration {
        if age >= ageOfMajority { return .selfDeclared }
        if age < childAge || inFamily { return .guardianDeclared }
        return .selfDeclared
    }

    /// The range a member reveals: bounds for `age` under the region's effective gates, the declaration, and
    /// `.communicationLimits` when they are on and the upper bound is below the age of majority.
    public static func range(
        age: Int, gates: [Int], ageOfMajority: Int, inFamily: Bool, communicationLimitsOn: Bool,
        significantChangeApprovalRequired: Bool = false
    ) -> DeclaredRange {
        let (lower, upper) = bounds(age: age, gates: effectiveGates(gates, ageOfMajority: ageOfMajority))
        var controls: ParentalControlFlags = []
        if communicationLimitsOn, let upper, upper < ageOfMajority { controls.insert(.communicationLimits) }
        if significantChangeApprovalRequired, let upper, upper < ageOfMajority {
            controls.insert(.significantAppChangeApprovalRequired)
        }
        return DeclaredRange(
            lowerBound: lower, upperBound: upper,
            declaration: declaration(age: age, ageOfMajority: ageOfMajority, inFamily: inFamily),
            parentalControls: controls)
    }

    /// The day new information may last have been revealed: the latest anniversary of `firstDeclared` on or before
    /// `today` (29 February falls on 1 March in common years, as birthdays do).
    public static func lastAnniversary(of firstDeclared: BirthDate, onOrBefore today: BirthDate) -> BirthDate {
        var year = today.year
        let (month, day) = firstDeclared.birthdayIn(year: year)
        if (today.month, today.day) < (month, day) { year -= 1 }
        guard year > firstDeclared.year else { return firstDeclared }
        let (m, d) = firstDeclared.birthdayIn(year: year)
        return BirthDate(year: year, month: m, day: d) ?? firstDeclared
    }

    /// The anniversary after `anniversary`.
    public static func nextAnniversary(of firstDeclared: BirthDate, after anniversary: BirthDate) -> BirthDate {
        let year = anniversary.year + 1
        let (m, d) = firstDeclared.birthdayIn(year: year)
        return BirthDate(year: year, month: m, day: d) ?? anniversary
    }
}
