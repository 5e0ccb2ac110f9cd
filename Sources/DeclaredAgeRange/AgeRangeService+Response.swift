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
                ageRangeDeclaration: AgeRangeDeclaration(range.declaration),
                activeParentalControls: ParentalControls(rawValue: Int(range.parentalControls.rawValue)))
        }
    }

    /// How the age behind a range was established, and by whom: the family file's `ageAssurance` for the member
    /// (Apple's assurance cases, 26.2 and 26.5), else `guardianDeclared` for children and teens in a family and
    /// `selfDeclared` for everyone else. Pushed changes (`updates`, a prompt's outcome) carry it too, unless one of the
    /// member's devices predates it (protocol 3): then they say who declared.
    public enum AgeRangeDeclaration: Hashable, Sendable, CustomStringConvertible {
        /// The user declared their own age.
        case selfDeclared
        /// A parent, guardian or the family organizer declared it.
        case guardianDeclared
        /// The user's age was checked by a method not named here.
        case checkedByOtherMethod
        /// A parent or guardian had the age checked by a method not named here.
        case guardianCheckedByOtherMethod
        /// The user's age was checked against a government ID.
        case governmentIDChecked
        /// A parent or guardian had the age checked against a government ID.
        case guardianGovernmentIDChecked
        /// The user's age was checked with a payment method, such as a credit card.
        case paymentChecked
        /// A parent or guardian had the age checked with a payment method.
        case guardianPaymentChecked
        /// The age was confirmed by a scrutinized method (a credit card or a government ID) without saying which.
        case confirmed

        init(_ declaration: AgeDeclaration) {
            switch declaration {
            case .selfDeclared: self = .selfDeclared
            case .guardianDeclared: self = .guardianDeclared
            case .checkedByOtherMethod: self = .checkedByOtherMethod
            case .guardianCheckedByOtherMethod: self = .guardianCheckedByOtherMethod
            case .governmentIDChecked: self = .governmentIDChecked
            case .guardianGovernmentIDChecked: self = .guardianGovernmentIDChecked
            case .paymentChecked: self = .paymentChecked
            case .guardianPaymentChecked: self = .guardianPaymentChecked
            case .confirmed: self = .confirmed
            }
        }

        /// The case's name, as the family file spells it.
        public var description: String {
            switch self {
            case .selfDeclared: "selfDeclared"
            case .guardianDeclared: "guardianDeclared"
            case .checkedByOtherMethod: "checkedByOtherMethod"
            case .guardianCheckedByOtherMethod: "guardianCheckedByOtherMethod"
            case .governmentIDChecked: "governmentIDChecked"
            case .guardianGovernmentIDChecked: "guardianGovernmentIDChecked"
            case .paymentChecked: "paymentChecked"
            case .guardianPaymentChecked: "guardianPaymentChecked"
            case .confirmed: "confirmed"
            }
        }
    }

    /// Parental controls in force for the user.
    public struct ParentalControls: OptionSet, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Communication Limits are on: use PermissionKit before the user talks to someone new.
        public static let communicationLimits = ParentalControls(rawValue: 1)
        /// The user's region requires a parent's consent before a significant change of the app: ask with
        /// PermissionKit's `askSignificantChangePermission(for:permissionFlow:in:)`. Apple made this an option set
        /// member in iOS 26.2 and moved the signal to `requiredRegulatoryFeatures` in 26.4; the broker sets both, from
        /// the region rules file. Deprecated as Apple deprecated it in 26.4: it still compiles and is still set.
        @available(*, deprecated, message: "Use requiredRegulatoryFeatures")
        public static let significantAppChangeApprovalRequired = approvalRequired
        /// The flag's value, for this file's own use without the deprecation warning.
        static let approvalRequired = ParentalControls(rawValue: 2)

        /// The controls' names, for debugging: `[communicationLimits, significantAppChangeApprovalRequired]`.
        public var description: String {
            let names: [(ParentalControls, String)] = [
                (.communicationLimits, "communicationLimits"),
                (.approvalRequired, "significantAppChangeApprovalRequired"),
            ]
            var listed = names.filter { contains($0.0) }.map(\.1)
            let unknown = rawValue & ~names.reduce(0) { $0 | $1.0.rawValue }
            if unknown != 0 { listed.append("rawValue(\(unknown))") }
            return "[" + listed.joined(separator: ", ") + "]"
        }
    }
}
