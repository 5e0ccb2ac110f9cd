/// An age range as the broker reveals it: never a birth date, only bounds relative to an app's age gates.
///
/// A nil `lowerBound` means below the lowest gate; a nil `upperBound` means at or above the highest. The upper bound
/// is the next gate minus one (gates 13 and 16: `nil…12`, `13…15`, `16…nil`).
public struct DeclaredRange: Hashable, Sendable {
    public var lowerBound: Int?
    public var upperBound: Int?
    public var declaration: AgeDeclaration
    public var parentalControls: ParentalControlFlags

    public init(
        lowerBound: Int?, upperBound: Int?, declaration: AgeDeclaration, parentalControls: ParentalControlFlags = []
    ) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
        self.declaration = declaration
        self.parentalControls = parentalControls
    }

    /// `12 or under`, `13-15`, `16 or over`.
    public var boundsDescription: String {
        switch (lowerBound, upperBound) {
        case (nil, let upper?): "\(upper) or under"
        case (let lower?, nil): "\(lower) or over"
        case (let lower?, let upper?): "\(lower)-\(upper)"
        case (nil, nil): "any age"
        }
    }
}

/// How a member's age was established, and by whom (Apple's `AgeRangeDeclaration`). The family file's `ageAssurance`
/// records it per member; without it the broker derives `selfDeclared` or `guardianDeclared` from the age and family.
///
/// Values 3 to 9 name Apple's assurance methods. A peer of protocol version 1 or 2 refuses them: the broker sends
/// such a peer `v1Equivalent` (who declared), in replies and in the events of a member with such a device, since a
/// member's events reach all of its devices whatever their version.
public enum AgeDeclaration: UInt8, Hashable, Sendable, CaseIterable {
    /// The user declared their own age: adults, and teens in no family.
    case selfDeclared = 1
    /// A parent or guardian declared it: children, and teens in a family.
    case guardianDeclared = 2
    /// The user's age was checked by a method not named here.
    case checkedByOtherMethod = 3
    /// A parent or guardian had the age checked by a method not named here.
    case guardianCheckedByOtherMethod = 4
    /// The user's age was checked against a government ID.
    case governmentIDChecked = 5
    /// A parent or guardian had the age checked against their government ID.
    case guardianGovernmentIDChecked = 6
    /// The user's age was checked with a payment method, such as a credit card.
    case paymentChecked = 7
    /// A parent or guardian had the age checked with their payment method.
    case guardianPaymentChecked = 8
    /// The age was confirmed by a scrutinized method (a government ID or a credit card) without saying which.
    case confirmed = 9

    /// True when a parent or guardian, not the user, established the age.
    public var isGuardian: Bool {
        switch self {
        case .guardianDeclared, .guardianCheckedByOtherMethod, .guardianGovernmentIDChecked, .guardianPaymentChecked:
            true
        case .selfDeclared, .checkedByOtherMethod, .governmentIDChecked, .paymentChecked, .confirmed: false
        }
    }

    /// The protocol v1 value a peer that did not negotiate version 3 gets: who declared, without how.
    public var v1Equivalent: AgeDeclaration { isGuardian ? .guardianDeclared : .selfDeclared }

    /// The name the family file and the admin commands use: the case's name.
    public var name: String { String(describing: self) }

    /// The declaration named `name` (`governmentIDChecked`…); nil for any other text.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = match
    }
}

/// Parental controls revealed with a range whose upper bound is below the age of majority.
public struct ParentalControlFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The parents turned on Communication Limits.
    public static let communicationLimits = ParentalControlFlags(rawValue: 1)
    /// The member's region requires a parent's consent to a significant change of an app (its rule lists
    /// `significantAppChangeRequiresParentalConsent` and the member is a minor). A peer that predates it decodes it
    /// anyway (the byte is an option set, unknown bits are kept).
    public static let significantAppChangeApprovalRequired = ParentalControlFlags(rawValue: 2)
}
