import Foundation
public import HearthCore
import Yams

/// `config/regions.yaml`: the age of majority per region, each with its source, and what the region's law requires of
/// apps, with the law.
public struct RegionFile: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var ageOfMajority: Int
        public var source: String
        /// What the region's law requires of apps, by `RegulatoryFeatures` name; absent: none.
        public var regulatoryFeatures: [String]?
        /// The law requiring them: required when `regulatoryFeatures` lists any.
        public var regulatorySource: String?

        public init(
            ageOfMajority: Int, source: String, regulatoryFeatures: [String]? = nil, regulatorySource: String? = nil
        ) {
            self.ageOfMajority = ageOfMajority
            self.source = source
            self.regulatoryFeatures = regulatoryFeatures
            self.regulatorySource = regulatorySource
        }
    }

    public var defaultAgeOfMajority: Int
    public var regions: [String: Entry]

    /// Loads and validates the file at `path`; errors name the file, the key and the reason.
    public static func load(path: String) throws -> RegionRules {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError(source: path, key: "", reason: "cannot read the regions file")
        }
        let file: RegionFile
        do {
            file = try YAMLDecoder().decode(RegionFile.self, from: text)
        } catch {
            throw ConfigurationError(source: path, key: "", reason: "not a regions file: \(error)")
        }
        return try file.rules(source: path)
    }

    func rules(source: String) throws -> RegionRules {
        guard (1...30).contains(defaultAgeOfMajority) else {
            throw ConfigurationError(
                source: source, key: "defaultAgeOfMajority", reason: "must be 1...30, found \(defaultAgeOfMajority)")
        }
        var table: [String: RegionRules.Rule] = [:]
        for (code, entry) in regions {
            guard RegionRules.isValidRegionCode(code) else {
                throw ConfigurationError(
                    source: source, key: "regions.\(code)", reason: "not an ISO 3166 code such as US or US-AL")
            }
            guard (1...30).contains(entry.ageOfMajority) else {
                throw ConfigurationError(
                    source: source, key: "regions.\(code).ageOfMajority",
                    reason: "must be 1...30, found \(entry.ageOfMajority)")
            }
            guard !entry.source.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ConfigurationError(
                    source: source, key: "regions.\(code).source", reason: "every figure names its source")
            }
            table[code.uppercased()] = RegionRules.Rule(
                ageOfMajority: entry.ageOfMajority, source: entry.source,
                regulatoryFeatures: try Self.features(entry, key: "regions.\(code)", source: source),
                regulatorySource: entry.regulatorySource)
        }
        return RegionRules(defaultAgeOfMajority: defaultAgeOfMajority, regions: table)
    }

    /// The entry's regulatory features: every name known, none twice, and a source naming the law when any is listed.
    static func features(_ entry: Entry, key: String, source: String) throws -> RegulatoryFeatures {
        var features: RegulatoryFeatures = []
        for name in entry.regulatoryFeatures ?? [] {
            guard let feature = RegulatoryFeatures(name: name) else {
                let known = RegulatoryFeatures.named.map(\.name).joined(separator: ", ")
                throw ConfigurationError(
                    source: source, key: "\(key).regulatoryFeatures",
                    reason: "unknown feature \"\(name)\"; one of \(known)")
            }
            guard !features.contains(feature) else {
                throw ConfigurationError(
                    source: source, key: "\(key).regulatoryFeatures", reason: "\(name) is listed twice")
            }
            features.insert(feature)
        }
        if !features.isEmpty, (entry.regulatorySource ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
            throw ConfigurationError(
                source: source, key: "\(key).regulatorySource",
                reason: "regulatory features name the law requiring them")
        }
        return features
    }
}
