import Foundation
import HearthCore
import Yams

/// `config/regions.yaml`: the age of majority per region, each with its source.
public struct RegionFile: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var ageOfMajority: Int
        public var source: String
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
            table[code.uppercased()] = RegionRules.Rule(ageOfMajority: entry.ageOfMajority, source: entry.source)
        }
        return RegionRules(defaultAgeOfMajority: defaultAgeOfMajority, regions: table)
    }
}
