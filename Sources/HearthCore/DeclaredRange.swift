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

/// Who vouches for a declared range (Apple's `AgeRangeDeclaration`).
public enum AgeDeclaration: UInt8, Hashable, Sendable, CaseIterable {
    /// The user declared their own age: adults, and teens in no family.
    case selfDeclared = 1
    /// A parent or guardian declared it: children, and teens in a family.
    case guardianDeclared = 2
}

/// Parental controls revealed with a range whose upper bound is below the age of majority.
public struct ParentalControlFlags: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The parents turned on Communication Limits.
    public static let communicationLimits = ParentalControlFlags(rawValue: 1)
}
