public import Foundation
public import HearthCore

/// A device's command as the engine takes it: decoded, from an enrolled device, and one the broker runs.
public enum BrokerCommand: Sendable, Hashable {
    /// The connection's first command: the device learns who the broker authenticated; `version` is the protocol
    /// version negotiated from the device's range, which `welcome` names.
    case hello(version: UInt8)
    case ping
    case sync(after: UInt64, limit: UInt32)
    case knownHandles([CommunicationHandle])
    case ask(app: BundleID, question: Question)
    case answer(questionID: UUID, choiceID: String, message: String? = nil)
    case approveInPerson(questionID: UUID, passcode: String)
    /// A parent declines on the child's device with the Screen Time passcode (negotiated version 4).
    case declineInPerson(questionID: UUID, passcode: String)
    case withdraw(questionID: UUID)
    case listApproved(childID: MemberID)
    case history(HistoryQuery)
    case setLimits(childID: MemberID, settings: CommunicationSettings)
    case getLimits(childID: MemberID)
    case editContacts(childID: MemberID, add: [Contact], remove: [CommunicationHandle])
    case revokeApproval(childID: MemberID, handles: [CommunicationHandle])
    case setPasscode(childID: MemberID, passcode: String)
    case requestAgeRange(app: BundleID, gates: [Int])
    case setAgeSharing(member: MemberID, AgeSharing)
    case answerAgePrompt(id: UUID, share: Bool)
    case clearAgeCache(app: BundleID)
    /// What the law of the member's region requires of apps (negotiated version 3).
    case regulatoryFeatures
    /// The member acknowledged a significant update of `app` (negotiated version 3).
    case acknowledgeUpdate(app: BundleID, description: String)
}
