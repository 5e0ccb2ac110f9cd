import Foundation
import HearthCore
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The child defaults an ask uses are made once per policy; they must be what `ChildDefaults` makes per call.
@Suite("Resolved child defaults")
struct ResolvedChildDefaultsTests {
    static let custom = ChildDefaults(
        bands: [
            .init(
                under: 9, communicationLimits: false, screenTime: "everyone", downtime: "specificContacts",
                downtimeSchedule: nil, allowContactEditing: true),
            .init(
                under: 15, communicationLimits: true, screenTime: "contactsAndGroups", downtime: "contactsOnly",
                downtimeSchedule: "20:30-06:45", allowContactEditing: false),
            .init(
                under: 21, communicationLimits: true, screenTime: "contactsOnly", downtime: "everyone",
                downtimeSchedule: "not a window", allowContactEditing: true),
        ],
        emergencyNumbers: ["112", "17"], askLimit: .init(count: 5, perSeconds: 60))

    @Test(arguments: [ChildDefaults.builtIn, ResolvedChildDefaultsTests.custom])
    func everyAgeGetsTheSettingsChildDefaultsMakes(_ defaults: ChildDefaults) {
        let resolved = ResolvedChildDefaults(defaults)
        for age in [nil] + (0..<40).map(Optional.some) {
            #expect(resolved.settings(forAge: age) == defaults.settings(forAge: age), "age \(String(describing: age))")
        }
        #expect(resolved.emergencyHandles == defaults.emergencyHandles)
    }

    @Test func thePolicyResolvesItsDefaultsAgainWhenTheyChange() {
        var policy = BrokerPolicy()
        #expect(policy.resolvedDefaults.settings(forAge: 10) == ChildDefaults.builtIn.settings(forAge: 10))
        policy.childDefaults = Self.custom
        #expect(policy.resolvedDefaults.settings(forAge: 10) == Self.custom.settings(forAge: 10))
        #expect(policy.resolvedDefaults.emergencyHandles == Self.custom.emergencyHandles)
        policy.childDefaults.emergencyNumbers = ["999"]
        #expect(policy.resolvedDefaults.emergencyHandles == [CommunicationHandle(value: "999", kind: .phoneNumber)])
    }

    /// One handle, as most asks name, takes a shorter way to the pending-question key: the same key.
    @Test func aSingleHandlesKeyIsTheGeneralOne() {
        for handle in [
            CommunicationHandle(value: "bob", kind: .custom), CommunicationHandle(value: "+1 555", kind: .phoneNumber),
            CommunicationHandle(value: "zoë@exämple.org", kind: .emailAddress),
            CommunicationHandle(value: "", kind: .custom),
        ] {
            let general = Set(["\(handle.kind.rawValue):\(handle.value)"]).sorted().joined(separator: "\n")
            #expect(Stored.handlesKey([handle]) == general)
            #expect(Stored.handlesKey([handle, handle]) == general)
        }
    }
}
