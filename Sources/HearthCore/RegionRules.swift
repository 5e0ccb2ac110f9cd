/// The age of majority per region, which decides who is a child (Family Sharing) and the largest meaningful age gate
/// (Declared Age Range).
///
/// Regions are ISO 3166-1 codes (`US`), optionally with an ISO 3166-2 subdivision (`US-AL`); a subdivision falls back
/// to its country, an unknown country to `defaultAgeOfMajority`. The broker loads `config/regions.yaml`; `builtIn` is the
/// same table, for a broker started without it (a test keeps the two equal).
public struct RegionRules: Sendable, Equatable {
    /// One region's rule and where the figure comes from.
    public struct Rule: Sendable, Equatable {
        public var ageOfMajority: Int
        public var source: String

        public init(ageOfMajority: Int, source: String) {
            self.ageOfMajority = ageOfMajority
            self.source = source
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
        guard let region = region?.uppercased() else { return defaultAgeOfMajority }
        if let rule = regions[region] { return rule.ageOfMajority }
        if let dash = region.firstIndex(of: "-"), let rule = regions[String(region[..<dash])] {
            return rule.ageOfMajority
        }
        return defaultAgeOfMajority
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
