public import Foundation
public import HearthCore

/// Declared Age Range messages (protocol v1, type codes 0x40–0x4F requests, 0xC0–0xCF replies and pushes), carried
/// as `Message.ageRange`. docs/PROTOCOL.md §6.5 gives each layout.
public enum AgeRangeMessage: Sendable, Hashable {
    /// 0x40: an app asks for the user's range relative to its gates (app → device, device → broker). The reply is
    /// `result`, or `prompted` when the user must answer an Ask First prompt first.
    case request(app: BundleID, gates: [Int])
    /// 0x41: sets a member's sharing setting (person → device → broker); the reply is `sharingSet`.
    case setSharing(member: MemberID, AgeSharing)
    /// 0x42: the user answers an Ask First prompt (person → device → broker); the reply is `promptAnswered`.
    case answerPrompt(id: UUID, share: Bool)
    /// 0x43: forgets what was shared with `app`, so its next request gets the current range; the reply is `cacheCleared`.
    case clearCache(app: BundleID)
    /// 0x44: the app wants `update` pushes when its answer changes (app → device); the reply is `ok`.
    case watch(app: BundleID)
    /// 0x45: the prompts waiting on this device (person → device); the reply is `promptList`.
    case listPrompts
    /// 0x46 (negotiated version 3): what the law of the sender's region requires of apps (app → device, device →
    /// broker); the reply is `regulatoryFeatures`.
    case requestRegulatoryFeatures
    /// 0x47 (negotiated version 3): the user acknowledged a significant update of `app`, as the app describes it
    /// (app → device, device → broker); the broker records it in the family's history. The reply is `ok`.
    case acknowledgeUpdate(app: BundleID, description: String)

    /// 0xC0: the answer to `request`.
    case result(app: BundleID, AgeRangeAnswer)
    /// 0xC1: the user was prompted; the outcome follows as an `update` push naming `id`, at the latest after
    /// `timeoutMilliseconds` (a timeout declines).
    case prompted(id: UUID, app: BundleID, timeoutMilliseconds: UInt32)
    /// 0xC2: the setting now in force.
    case sharingSet(member: MemberID, AgeSharing)
    /// 0xC3: the prompt's outcome as recorded.
    case promptAnswered(id: UUID, AgeRangeAnswer)
    /// 0xC4: whether there was anything to forget.
    case cacheCleared(app: BundleID, existed: Bool)
    /// 0xC5: waiting prompts, oldest first.
    case promptList([AgePrompt])
    /// 0xC6: a push (request id 0) to an app: its answer changed, or (with `promptID`) a prompt it waits on closed.
    case update(app: BundleID, promptID: UUID?, AgeRangeAnswer)
    /// 0xC7: the answer to `requestRegulatoryFeatures`, for this member (by region and age); empty where no law applies.
    case regulatoryFeatures(RegulatoryFeatures)

    /// The type written in the header.
    public var type: MessageType {
        switch self {
        case .request: .ageRangeRequest
        case .setSharing: .ageSetSharing
        case .answerPrompt: .ageAnswerPrompt
        case .clearCache: .ageClearCache
        case .watch: .ageWatch
        case .listPrompts: .ageListPrompts
        case .requestRegulatoryFeatures: .ageRegulatoryRequest
        case .acknowledgeUpdate: .ageAcknowledgeUpdate
        case .result: .ageRangeResult
        case .prompted: .ageRangePrompted
        case .sharingSet: .ageSharingSet
        case .promptAnswered: .agePromptAnswered
        case .cacheCleared: .ageCacheCleared
        case .promptList: .agePromptList
        case .update: .ageRangeUpdate
        case .regulatoryFeatures: .ageRegulatoryFeatures
        }
    }

    /// The type code written in the header.
    public var typeCode: UInt8 { type.rawValue }

    /// True for the type codes this enum owns.
    public static func owns(_ type: UInt8) -> Bool { (0x40...0x4F).contains(type) || (0xC0...0xCF).contains(type) }
}

extension AgeRangeAnswer {
    /// The answer as a peer of `version` reads it: before version 3 an assurance method (3–9) becomes who declared.
    public func forPeer(version: UInt8) -> AgeRangeAnswer {
        guard version < Wire.ageSignalsVersion, case .sharing(var range) = self else { return self }
        range.declaration = range.declaration.v1Equivalent
        return .sharing(range)
    }
}
