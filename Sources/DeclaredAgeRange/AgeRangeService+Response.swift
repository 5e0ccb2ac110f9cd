import HearthCore

extension AgeRangeService {
    /// The user's answer to an age range request.
    public enum Response: Hashable, Sendable {
        /// The user declined (Never Share, a declined prompt, or a prompt nobody answered in time).
        case declinedSharing
        /// The user shared this range.
        case sharing(range: AgeRange)

        init(_ answer: AgeRangeAnswer) {
            switch answer {
            case .sharing(let range): self = .sharing(range: AgeRange(range))
            case .declined: self = .declinedSharing
            }
        }
    }

    /// An age range: `lowerBound` nil means below the lowest gate, `upperBound` nil means at or above the highest.
    /// The upper bound is the next gate minus one: gates 13 and 16 give `nil…12`, `13…15` and `16…nil`.
    public struct AgeRange: Hashable, Sendable {
        public var lowerBound: Int?
        public var upperBound: Int?
        /// Who vouches for the range.
        public var ageRangeDeclaration: AgeRangeDeclaration?
        /// Controls the parents set, given when the upper bound is below the region's age of majority.
        public var activeParentalControls: ParentalControls

        public init(
            lowerBound: Int?, upperBound: Int?, ageRangeDeclaration: AgeRangeDeclaration?,
            activeParentalControls: ParentalControls = []
        ) {
            self.lowerBound = lowerBound
            self.upperBound = upperBound
            self.ageRangeDeclaration = ageRangeDeclaration
            self.activeParentalControls = activeParentalControls
        }

        init(_ range: DeclaredRange) {
            self.init(
                lowerBound: range.lowerBound, upperBound: range.upperBound,
                ageRangeDeclaration: range.declaration == .guardianDeclared ? .guardianDeclared : .selfDeclared,
                activeParentalControls: ParentalControls(rawValue: Int(range.parentalControls.rawValue)))
        }
    }

    /// Who declared the age: the user, or a parent or guardian.
    public enum AgeRangeDeclaration: Hashable, Sendable, CustomStringConvertible {
        /// Adults, and teens in no family.
        case selfDeclared
        /// Children, and teens in a family.
        case guardianDeclared

        public var description: String {
            switch self {
            case .selfDeclared: "selfDeclared"
            case .guardianDeclared: "guardianDeclared"
            }
        }
    }

    /// Parental controls in force for the user.
    public struct ParentalControls: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Communication Limits are on: use PermissionKit before the user talks to someone new.
        public static let communicationLimits = ParentalControls(rawValue: 1)
    }
}
