public import Foundation
public import HearthCore
public import HearthProtocol

/// What a command gets back when it succeeds; `BrokerFrames` encodes it.
public enum BrokerReply: Sendable, Hashable {
    case welcome(
        version: UInt8, familyID: FamilyID?, memberID: MemberID, deviceID: DeviceID, role: MemberRole, head: UInt64)
    case pong(head: UInt64)
    case events(head: UInt64, [Event])
    case knownHandles([CommunicationHandle])
    case askAccepted(AskedQuestion, Resolution?)
    case answerAccepted(Resolution)
    case limits(childID: MemberID, settings: CommunicationSettings, contacts: [Contact])
    case handlesRevoked([CommunicationHandle])
    case approvedList(childID: MemberID, [Approval], complete: Bool)
    /// A page of a child's history; `next` is the cursor of the following page (nil: this was the last).
    case historyPage(childID: MemberID, [HistoryEntry], next: UInt64?)
    case ok
    case ageRange(app: BundleID, AgeRangeAnswer)
    case agePrompted(id: UUID, app: BundleID, timeoutMilliseconds: UInt32)
    case ageSharingSet(member: MemberID, AgeSharing)
    case agePromptAnswered(id: UUID, AgeRangeAnswer)
    case ageCacheCleared(app: BundleID, existed: Bool)
    case regulatoryFeatures(RegulatoryFeatures)
    /// On a cluster: the device's family is served by another broker (in place of any reply).
    case redirect(BrokerRedirect)
}

/// The outcome of one command: its reply, or the typed error that is its reply.
public typealias CommandOutcome = Result<BrokerReply, ErrorReply>
