/// What the law of a member's region requires of apps (Apple's `AgeRangeService.RegulatoryFeature`), as the region
/// rules file lists it and the broker reports it: an option set, one bit per feature, on the wire as one byte.
public struct RegulatoryFeatures: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The user must share an age range with the app (every member of the region).
    public static let declaredAgeRangeRequired = RegulatoryFeatures(rawValue: 1)
    /// A parent or guardian must consent to a significant change of the app (minors only).
    public static let significantAppChangeRequiresParentalConsent = RegulatoryFeatures(rawValue: 2)
    /// An adult must acknowledge a significant change of the app (adults only).
    public static let significantAppChangeRequiresAdultNotification = RegulatoryFeatures(rawValue: 4)

    /// Each feature with the name the region rules file and Apple's enum use.
    public static let named: [(feature: RegulatoryFeatures, name: String)] = [
        (.declaredAgeRangeRequired, "declaredAgeRangeRequired"),
        (.significantAppChangeRequiresParentalConsent, "significantAppChangeRequiresParentalConsent"),
        (.significantAppChangeRequiresAdultNotification, "significantAppChangeRequiresAdultNotification"),
    ]

    /// The feature named `name`; nil for any other text.
    public init?(name: String) {
        guard let match = Self.named.first(where: { $0.name == name }) else { return nil }
        self = match.feature
    }

    /// The features' names, in the order above; bits this build does not name are left out.
    public var names: [String] { Self.named.filter { contains($0.feature) }.map(\.name) }

    /// `[declaredAgeRangeRequired, …]`.
    public var description: String { "[" + names.joined(separator: ", ") + "]" }

    /// What applies to one member of a region that lists `self`: the age-range requirement to everyone, parental
    /// consent to minors, adult notification to adults. The laws (Texas, Utah, Louisiana) split them that way.
    public func applying(toMinor isMinor: Bool) -> RegulatoryFeatures {
        var features = intersection(.declaredAgeRangeRequired)
        if isMinor {
            features.formUnion(intersection(.significantAppChangeRequiresParentalConsent))
        } else {
            features.formUnion(intersection(.significantAppChangeRequiresAdultNotification))
        }
        return features
    }
}
