/// The type code in byte 1 of every frame's header: the one place protocol v1 spells them (docs/PROTOCOL.md).
///
/// Requests have the high bit clear, replies and pushes set; Declared Age Range owns 0x40–0x4F and 0xC0–0xCF.
public enum MessageType: UInt8, Sendable, CaseIterable {
    // device → broker
    case hello = 0x01
    case sync = 0x02
    case ask = 0x03
    case answer = 0x04
    case knownHandles = 0x05
    case ping = 0x06
    case setLimits = 0x07
    case getLimits = 0x08
    case editContacts = 0x09
    case revokeApproval = 0x0A
    case setPasscode = 0x0B
    case approveInPerson = 0x0C
    case withdraw = 0x0D
    case listApproved = 0x0E
    case history = 0x0F
    case declineInPerson = 0x10
    // broker → device
    case welcome = 0x81
    case events = 0x82
    case askAccepted = 0x83
    case answerAccepted = 0x84
    case knownHandlesResult = 0x85
    case pong = 0x86
    case limits = 0x87
    case handlesRevoked = 0x88
    case approvedList = 0x8A
    case historyPage = 0x8B
    case redirect = 0x89
    case error = 0xFF
    case event = 0x90
    case heartbeat = 0x91
    case eventBatch = 0x92
    // app ↔ child-device, person ↔ parent-device, operator ↔ broker
    case appHello = 0x20
    case appWelcome = 0xA0
    case appResponse = 0xA2
    case appAck = 0x24
    case ok = 0xA3
    case listPending = 0x30
    case pendingList = 0xB0
    case parentWatch = 0x31
    case parentWatching = 0xB1
    case parentNotification = 0xB2
    case adminRequest = 0x50
    case adminResult = 0xD0
    // Declared Age Range
    case ageRangeRequest = 0x40
    case ageSetSharing = 0x41
    case ageAnswerPrompt = 0x42
    case ageClearCache = 0x43
    case ageWatch = 0x44
    case ageListPrompts = 0x45
    case ageRegulatoryRequest = 0x46
    case ageAcknowledgeUpdate = 0x47
    case ageRangeResult = 0xC0
    case ageRangePrompted = 0xC1
    case ageSharingSet = 0xC2
    case agePromptAnswered = 0xC3
    case ageCacheCleared = 0xC4
    case agePromptList = 0xC5
    case ageRangeUpdate = 0xC6
    case ageRegulatoryFeatures = 0xC7

    /// The type of a frame whose header is intact, even if its body is not; nil for a short frame or an unknown code.
    public init?(frame: [UInt8]) {
        guard frame.count >= Wire.headerSize else { return nil }
        self.init(rawValue: frame[1])
    }

    /// The code as text, as errors and logs show it: `0x3`.
    public var hex: String { "0x\(String(rawValue, radix: 16))" }
}
