/// The age of majority per region, which decides who is a child (Family Sharing) and the largest meaningful age gate
/// (Declared Age Range), and what the region's law requires of apps (`RegulatoryFeatures`).
///
/// Regions are ISO 3166-1 codes (`US`), optionally with an ISO 3166-2 subdivision (`US-AL`); a subdivision falls back
/// to its country, an unknown country to `defaultAgeOfMajority`. The broker loads `config/regions.yaml`; `builtIn` is the
/// same table, for a broker started without it (a test keeps the two equal).
public struct RegionRules: Sendable, Equatable {
    /// One region's rule and where the figure comes from.
    public struct Rule: Sendable, Equatable {
        public var ageOfMajority: Int
        public var source: String
        /// What the region's law requires of apps; none in most regions.
        public var regulatoryFeatures: RegulatoryFeatures
        /// The law requiring them, when there are any.
        public var regulatorySource: String?

        public init(
            ageOfMajority: Int, source: String, regulatoryFeatures: RegulatoryFeatures = [],
            regulatorySource: String? = nil
        ) {
            self.ageOfMajority = ageOfMajority
            self.source = source
            self.regulatoryFeatures = regulatoryFeatures
            self.regulatorySource = regulatorySource
        }
    }

    public var defaultAgeOfMajority: Int
    public var regions: [String: Rule]

    public init(defaultAgeOfMajority: Int, regions: [String: Rule]) {
        self.defaultAgeOfMajority = defaultAgeOfMajority
        self.regions = regions
    }

    /// The age of majority in `region` (nil or unknown: the default).
    public func ageOfMajority(in region: String?) -> Int {
        rule(for: region)?.ageOfMajority ?? defaultAgeOfMajority
    }

    /// What the law of `region` requires of apps, before it is split by age (`RegulatoryFeatures.applying(toMinor:)`):
    /// the subdivision's rule, else its country's; none for an unknown or absent region.
    public func regulatoryFeatures(in region: String?) -> RegulatoryFeatures {
        rule(for: region)?.regulatoryFeatures ?? []
    }

    /// The rule of `region`, else of its country; nil when neither is listed.
    public func rule(for region: String?) -> Rule? {
        guard let region = region?.uppercased() else { return nil }
        if let rule = regions[region] { return rule }
        if let dash = region.firstIndex(of: "-") { return regions[String(region[..<dash])] }
        return nil
    }

    /// True when a region code is `CC` or `CC-SUB` (letters and digits).
    public static func isValidRegionCode(_ code: String) -> Bool {
        let parts = code.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts[0].count == 2, parts[0].allSatisfy({ $0.isASCII && $0.isLetter })
        else {
            return false
        }
        return parts.count == 1
            || (1...3).contains(parts[1].count) && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}
