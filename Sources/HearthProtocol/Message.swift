public import Foundation
public import HearthCore

/// Every message of protocol v1. The comment on each case gives its type code; docs/PROTOCOL.md gives its layout.
public enum Message: Sendable, Hashable {
    // MARK: device → broker (ingress DEALER → ROUTER)

    /// 0x01: first command on a connection; the broker replies `welcome` or an `unsupportedVersion` error.
    case hello(minVersion: UInt8, maxVersion: UInt8)
    /// 0x02: asks for the caller's member events with sequence > `after`; the reply is `events`.
    case sync(after: UInt64, limit: UInt32)
    /// 0x03: a child's app asks a question (also sent by an app to child-device, where `appBundleID` is ignored).
    case ask(appBundleID: BundleID, question: Question)
    /// 0x04: a parent answers a question with one of its choices and, optionally, a message for the child's app
    /// (also sent by a person to parent-device).
    case answer(questionID: UUID, choiceID: String, message: String? = nil)
    /// 0x05: which of these handles are known to the child; the reply is `knownHandlesResult`.
    case knownHandles([CommunicationHandle])
    /// 0x06: a heartbeat; the reply is `pong` with the caller's head sequence.
    case ping
    /// 0x07: the organizer or a guardian sets a child's Communication Limits; the reply is `limits`.
    case setLimits(childID: MemberID, settings: CommunicationSettings)
    /// 0x08: a child's limits and contacts, for the child or a parent of the family; the reply is `limits`.
    case getLimits(childID: MemberID)
    /// 0x09: adds and removes a child's contacts (a parent, or the child when contact editing is allowed); reply `limits`.
    case editContacts(childID: MemberID, add: [Contact], remove: [CommunicationHandle])
    /// 0x0A: a parent takes back approvals: the handles are no longer known to the child; the reply is `handlesRevoked`.
    case revokeApproval(childID: MemberID, handles: [CommunicationHandle])
    /// 0x0B: a parent sets (or, empty, clears) the child's Screen Time passcode; the reply is `ok`.
    case setPasscode(childID: MemberID, passcode: String)
    /// 0x0C: on the child's device, a parent types the passcode to approve a pending question; reply `answerAccepted`.
    case approveInPerson(questionID: UUID, passcode: String)
    /// 0x10 (negotiated version 4): on the child's device, a parent types the passcode to decline a pending question;
    /// reply `answerAccepted`, reason `declinedInPerson`.
    case declineInPerson(questionID: UUID, passcode: String)
    /// 0x0D: the child's app takes back its pending question (also sent by an app to child-device); the reply is
    /// `answerAccepted` with the resolution, reason `withdrawn`.
    case withdraw(questionID: UUID)
    /// 0x0E: a parent asks which handles were approved for a child, by whom and when; the reply is `approvedList`.
    case listApproved(childID: MemberID)
    /// 0x0F: a parent asks for a page of a child's history as the broker recorded it; the reply is `historyPage`.
    case history(HistoryQuery)

    // MARK: broker → device replies

    /// 0x81: the identity the broker authenticated, and the member's head sequence.
    case welcome(
        version: UInt8, familyID: FamilyID?, memberID: MemberID, deviceID: DeviceID, role: MemberRole, head: UInt64)
    /// 0x82: events in sequence order, and the member's head sequence at the time of the reply.
    case events(head: UInt64, events: [Event])
    /// 0x83: the question as recorded, and its resolution when it was answered at once (default response, already known).
    case askAccepted(AskedQuestion, Resolution?)
    /// 0x84: the answer that was recorded.
    case answerAccepted(Resolution)
    /// 0x85: the subset of the asked handles that are known.
    case knownHandlesResult([CommunicationHandle])
    /// 0x86: reply to `ping`.
    case pong(head: UInt64)
    /// 0x87: a child's Communication Limits, contacts, and whether limits apply to them now.
    case limits(childID: MemberID, settings: CommunicationSettings, contacts: [Contact])
    /// 0x88: the handles that stopped being known.
    case handlesRevoked([CommunicationHandle])
    /// 0x8A: a child's approved handles, by kind then value; `complete` is false when more did not fit the frame.
    case approvedList(childID: MemberID, approvals: [Approval], complete: Bool)
    /// 0x8B: a page of a child's history; `next` is the cursor of the following page, absent on the last one.
    case historyPage(childID: MemberID, entries: [HistoryEntry], next: UInt64?)
    /// 0x89: in place of any reply, from a broker of a cluster that does not own the device's family: reconnect to the
    /// owner it names (docs/PROTOCOL.md §6.2).
    indirect case redirect(BrokerRedirect)
    /// 0xFF: a typed error in reply to any request.
    case error(ErrorReply)

    // MARK: broker → device events (egress XPUB → SUB, after a topic frame)

    /// 0x90: one event of the topic's member.
    case event(Event)
    /// 0x91: the member's head sequence, sent when a subscription is granted and periodically.
    case heartbeat(head: UInt64)
    /// 0x92 (negotiated version 2): consecutive events of the topic's member, in sequence order, that one commit
    /// produced; one frame instead of one per event. Decoding refuses an empty batch, one over
    /// `Wire.maxEventsPerBatch`, and events of another member or out of sequence.
    case eventBatch([Event])

    // MARK: app ↔ child-device (local ipc)

    /// 0x20: an app names itself; child-device replies `appWelcome` and then pushes that app's waiting responses.
    case appHello(bundleID: BundleID)
    /// 0xA0: whether the daemon is linked to its broker now, and the child it serves.
    case appWelcome(memberID: MemberID?, brokerConnected: Bool)
    /// 0xA2: a response for the app; it stays in the daemon's inbox until the app sends `appAck`.
    case appResponse(inboxID: UInt64, AskedQuestion, Resolution)
    /// 0x24: the app has taken a response.
    case appAck(inboxID: UInt64)
    /// 0xA3: generic success reply to `appAck`.
    case ok

    // MARK: person ↔ parent-device (local ipc)

    /// 0x30: list the questions waiting for an answer.
    case listPending
    /// 0xB0: the waiting questions, oldest first.
    case pendingList([AskedQuestion])
    /// 0x31: tell this client of new notifications; with `after`, first those numbered above it.
    /// The reply is `parentWatching`.
    case parentWatch(after: UInt64?)
    /// 0xB1: the watch is registered; `head` is the number of the newest notification (0: none yet).
    case parentWatching(head: UInt64)
    /// 0xB2: a push (request id 0) to a watcher: something a parent should know now.
    case parentNotification(ParentNotification)

    // MARK: operator ↔ family-broker (local admin socket)

    /// 0x50: an admin command, as JSON text (docs/PROTOCOL.md §admin); the reply is `adminResult` or `error`.
    case adminRequest(String)
    /// 0xD0: the command's result, as JSON text.
    case adminResult(String)
    // MARK: Declared Age Range (0x40–0x4F, 0xC0–0xCF)

    /// An age range request, setting, prompt or answer; see `AgeRangeMessage`.
    case ageRange(AgeRangeMessage)

    /// The type written in the header.
    public var type: MessageType {
        switch self {
        case .hello: .hello
        case .sync: .sync
        case .ask: .ask
        case .answer: .answer
        case .knownHandles: .knownHandles
        case .ping: .ping
        case .setLimits: .setLimits
        case .getLimits: .getLimits
        case .editContacts: .editContacts
        case .revokeApproval: .revokeApproval
        case .setPasscode: .setPasscode
        case .approveInPerson: .approveInPerson
        case .declineInPerson: .declineInPerson
        case .withdraw: .withdraw
        case .listApproved: .listApproved
        case .history: .history
        case .welcome: .welcome
        case .events: .events
        case .askAccepted: .askAccepted
        case .answerAccepted: .answerAccepted
        case .knownHandlesResult: .knownHandlesResult
        case .pong: .pong
        case .limits: .limits
        case .handlesRevoked: .handlesRevoked
        case .approvedList: .approvedList
        case .historyPage: .historyPage
        case .redirect: .redirect
        case .error: .error
        case .event: .event
        case .heartbeat: .heartbeat
        case .eventBatch: .eventBatch
        case .appHello: .appHello
        case .appWelcome: .appWelcome
        case .appResponse: .appResponse
        case .appAck: .appAck
        case .ok: .ok
        case .listPending: .listPending
        case .pendingList: .pendingList
        case .parentWatch: .parentWatch
        case .parentWatching: .parentWatching
        case .parentNotification: .parentNotification
        case .adminRequest: .adminRequest
        case .adminResult: .adminResult
        case .ageRange(let message): message.type
        }
    }

    /// The type code written in the header.
    public var typeCode: UInt8 { type.rawValue }
}
