import Foundation
public import HearthCore
import Yams

/// What a child gets without a parent's say: age-appropriate Communication Limits for a new child account, the emergency
/// numbers every child may always reach, and the ask rate limit. `config/child-defaults.yaml` holds the same table as
/// `builtIn` (a test keeps them equal); family-broker reads the file with `--child-defaults`.
public struct ChildDefaults: Sendable, Equatable, Codable {
    /// Settings for children younger than `under` (the first matching band wins; the last band should cover every child).
    public struct Band: Sendable, Equatable, Codable {
        public var under: Int
        public var communicationLimits: Bool
        public var screenTime: String
        public var downtime: String
        /// `HH:MM-HH:MM` in the child's time zone, or absent for no downtime.
        public var downtimeSchedule: String?
        public var allowContactEditing: Bool
    }

    /// How many questions one child may ask within `perSeconds`.
    public struct AskLimit: Sendable, Equatable, Codable {
        public var count: Int
        public var perSeconds: Int

        public init(count: Int, perSeconds: Int) {
            self.count = count
            self.perSeconds = perSeconds
        }
    }

    public var bands: [Band]
    /// Phone numbers that are always known to every child (emergency services).
    public var emergencyNumbers: [String]
    public var askLimit: AskLimit

    public static let builtIn = ChildDefaults(
        bands: [
            Band(
                under: 13, communicationLimits: true, screenTime: "contactsOnly", downtime: "contactsOnly",
                downtimeSchedule: "21:00-07:00", allowContactEditing: false),
            Band(
                under: 200, communicationLimits: true, screenTime: "contactsAndGroups", downtime: "contactsOnly",
                downtimeSchedule: "22:00-07:00", allowContactEditing: true),
        ],
        emergencyNumbers: ["911", "112", "999", "000", "110", "119"],
        askLimit: AskLimit(count: 30, perSeconds: 3600))

    /// The settings a new child of `age` gets (nil age: a child with no birth date gets the youngest band).
    public func settings(forAge age: Int?) -> CommunicationSettings {
        let band = bands.first { (age ?? 0) < $0.under } ?? bands.last!
        return CommunicationSettings(
            enabled: band.communicationLimits, screenTime: CommunicationSettings.Scope(name: band.screenTime)!,
            downtime: CommunicationSettings.Scope(name: band.downtime)!,
            downtimeSchedule: band.downtimeSchedule.flatMap(CommunicationSettings.Downtime.init(text:)),
            allowContactEditing: band.allowContactEditing)
    }

    /// The emergency numbers as handles.
    public var emergencyHandles: Set<CommunicationHandle> {
        Set(emergencyNumbers.map { CommunicationHandle(value: $0, kind: .phoneNumber) })
    }

    /// Loads and validates `path`; errors name the key.
    public static func load(path: String) throws -> ChildDefaults {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigurationError(source: path, key: "", reason: "cannot read the child defaults file")
        }
        let defaults: ChildDefaults
        do {
            defaults = try YAMLDecoder().decode(ChildDefaults.self, from: text)
        } catch {
            throw ConfigurationError(source: path, key: "", reason: "not a child defaults file: \(error)")
        }
        try defaults.validate(source: path)
        return defaults
    }

    func validate(source: String) throws {
        func fail(_ key: String, _ reason: String) -> ConfigurationError {
            ConfigurationError(source: source, key: key, reason: reason)
        }
        guard !bands.isEmpty else { throw fail("bands", "at least one band") }
        var previous = 0
        for (i, band) in bands.enumerated() {
            guard band.under > previous else { throw fail("bands[\(i)].under", "bands must be in ascending age order") }
            previous = band.under
            guard let screen = CommunicationSettings.Scope(name: band.screenTime), screen != .specificContacts else {
                throw fail(
                    "bands[\(i)].screenTime", "'\(band.screenTime)' is not contactsOnly, contactsAndGroups or everyone")
            }
            guard CommunicationSettings.Scope(name: band.downtime) != nil else {
                throw fail(
                    "bands[\(i)].downtime",
                    "'\(band.downtime)' is not contactsOnly, contactsAndGroups, everyone or specificContacts")
            }
            if let schedule = band.downtimeSchedule, CommunicationSettings.Downtime(text: schedule) == nil {
                throw fail("bands[\(i)].downtimeSchedule", "'\(schedule)' is not HH:MM-HH:MM")
            }
        }
        for (i, number) in emergencyNumbers.enumerated() where number.isEmpty || number.utf8.count > 32 {
            throw fail("emergencyNumbers[\(i)]", "1 to 32 characters")
        }
        guard askLimit.count > 0, askLimit.perSeconds > 0 else {
            throw fail("askLimit", "count and perSeconds must be positive")
        }
    }
}
