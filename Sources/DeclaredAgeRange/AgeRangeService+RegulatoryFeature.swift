extension AgeRangeService {
    /// A feature the law of the user's region requires of apps (iOS 26.4), as the broker's region rules file lists it
    /// for the user's region and age: `requiredRegulatoryFeatures` returns them.
    public enum RegulatoryFeature: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The user must share an age range with the app before using it.
        case declaredAgeRangeRequired
        /// A parent or guardian must consent to a significant change of the app before a child gets it.
        case significantAppChangeRequiresParentalConsent
        /// An adult user must acknowledge a significant change of the app.
        case significantAppChangeRequiresAdultNotification

        /// The case's name, as the region rules file spells it.
        public var description: String { rawValue }
    }
}
