import HearthCore

/// `ChildDefaults` as an ask uses it: each band's settings and the emergency handles, made once. Made per ask, they
/// parsed the scope names and the downtime schedule and built a set of six handles every time.
struct ResolvedChildDefaults: Sendable {
    let defaults: ChildDefaults
    /// Each band's settings; nil for a band whose scope names do not parse (`ChildDefaults.validate` refuses those).
    private let settings: [CommunicationSettings?]
    /// The emergency numbers as handles.
    let emergencyHandles: Set<CommunicationHandle>

    init(_ defaults: ChildDefaults) {
        self.defaults = defaults
        settings = defaults.bands.map { band in
            guard let screenTime = CommunicationSettings.Scope(name: band.screenTime),
                let downtime = CommunicationSettings.Scope(name: band.downtime)
            else { return nil }
            return CommunicationSettings(
                enabled: band.communicationLimits, screenTime: screenTime, downtime: downtime,
                downtimeSchedule: band.downtimeSchedule.flatMap(CommunicationSettings.Downtime.init(text:)),
                allowContactEditing: band.allowContactEditing)
        }
        emergencyHandles = defaults.emergencyHandles
    }

    /// `ChildDefaults.settings(forAge:)`.
    func settings(forAge age: Int?) -> CommunicationSettings {
        let index = defaults.bands.firstIndex { (age ?? 0) < $0.under } ?? defaults.bands.count - 1
        return settings[index] ?? defaults.settings(forAge: age)
    }
}
