public import Foundation

/// One line of a child's family history as the broker records it: a decision on a question (who, when, which
/// choice, from which device or in person, with the parent's message), an expiry, a withdrawal, or a change to the
/// child's limits, contacts, approvals, passcode or age range sharing (who changed what). Every guardian reads the
/// same record (`history`, docs/PROTOCOL.md §6.1).
public struct HistoryEntry: Hashable, Sendable, Identifiable {
    /// What happened.
    public enum Kind: UInt8, Hashable, Sendable, CaseIterable {
        /// A parent chose an answer.
        case answered = 1
        /// A parent typed the Screen Time passcode on the child's device: approved in person.
        case approvedInPerson = 2
        /// Nobody answered before the question's expiration date: its default choice.
        case expired = 3
        /// The child's app withdrew the question.
        case withdrawn = 4
        /// The question was closed otherwise (the child left the family).
        case closed = 5
        /// A parent changed the child's Communication Limits.
        case limitsChanged = 6
        /// A parent (or the child, when allowed) added or removed contacts.
        case contactsChanged = 7
        /// A parent took back approvals.
        case approvalRevoked = 8
        /// A parent set, changed or cleared the Screen Time passcode.
        case passcodeChanged = 9
        /// A parent changed the child's Declared Age Range sharing.
        case ageSharingChanged = 10
        /// The child acknowledged a significant update of an app (protocol version 3: older peers never receive it).
        case updateAcknowledged = 11
        /// A parent typed the Screen Time passcode on the child's device to decline (protocol version 4).
        case declinedInPerson = 12

        /// The kind's name, as `hearthctl parent history --json` prints it.
        public var name: String {
            switch self {
            case .answered: "answered"
            case .approvedInPerson: "approvedInPerson"
            case .expired: "expired"
            case .withdrawn: "withdrawn"
            case .closed: "closed"
            case .limitsChanged: "limitsChanged"
            case .contactsChanged: "contactsChanged"
            case .approvalRevoked: "approvalRevoked"
            case .passcodeChanged: "passcodeChanged"
            case .ageSharingChanged: "ageSharingChanged"
            case .updateAcknowledged: "updateAcknowledged"
            case .declinedInPerson: "declinedInPerson"
            }
        }

        /// A change to the child's settings (not a question's outcome): every guardian's log gets it as an event,
        /// where a question's outcome already reaches them as `questionResolved`.
        public var isSettingsChange: Bool {
            (Kind.limitsChanged.rawValue...Kind.ageSharingChanged.rawValue).contains(rawValue)
        }

        /// The protocol version a peer must have negotiated to read this kind: an older one refuses unknown kinds,
        /// so the broker leaves such entries out of its `historyPage` (docs/PROTOCOL.md §5.14).
        public var protocolVersion: UInt8 {
            switch self {
            case .updateAcknowledged: 3
            case .declinedInPerson: 4
            default: 1
            }
        }
    }

    /// The broker's number for it, increasing in the order entries were recorded (0 before it is stored): the
    /// cursor of a `history` request.
    public var id: UInt64
    public var childMemberID: MemberID
    public var recordedAt: Date
    public var kind: Kind
    /// Who did it: the parent who answered or changed a setting, the child who withdrew or edited its contacts;
    /// nil for an expiry, an answer in person (whoever typed the passcode) or a closing.
    public var actor: MemberID?
    /// The device the command came from (the child's device for an approval in person); nil for the broker's own.
    public var deviceID: DeviceID?
    public var questionID: UUID?
    public var appBundleID: BundleID?
    /// The choice a question ended with.
    public var choice: PermissionChoice?
    /// The answering parent's words to the child's app.
    public var message: String?
    /// The question's handles, the handles revoked, or the contacts added and removed (at most `maxHandles`).
    public var handles: [CommunicationHandle]
    /// One line for a person, e.g. `alice changed emma's limits: Screen Time contactsOnly → everyone`. Entries whose
    /// words come from an app (an acknowledged update's description) quote them: print it with `ShortText.escaped`.
    public var summary: String

    public init(
        id: UInt64 = 0, childMemberID: MemberID, recordedAt: Date, kind: Kind, actor: MemberID? = nil,
        deviceID: DeviceID? = nil, questionID: UUID? = nil, appBundleID: BundleID? = nil,
        choice: PermissionChoice? = nil, message: String? = nil, handles: [CommunicationHandle] = [],
        summary: String
    ) {
        self.id = id
        self.childMemberID = childMemberID
        self.recordedAt = recordedAt
        self.kind = kind
        self.actor = actor
        self.deviceID = deviceID
        self.questionID = questionID
        self.appBundleID = appBundleID
        self.choice = choice
        self.message = message
        self.handles = Array(handles.prefix(Self.maxHandles))
        self.summary = Self.clipped(summary)
    }

    /// Most handles an entry keeps: the summary counts the rest, so an entry stays small.
    public static let maxHandles = 100

    /// The longest summary, in characters: one line for a person.
    public static let maxSummaryCharacters = 400
    /// The longest summary in UTF-8 bytes, the wire's cap (docs/PROTOCOL.md §5.14).
    public static let maxSummaryBytes = 2048

    static func clipped(_ text: String) -> String {
        var text = text.count <= maxSummaryCharacters ? text : String(text.prefix(maxSummaryCharacters - 1)) + "…"
        // A character may take many bytes (combining marks): the byte cap holds whatever the text.
        while text.utf8.count > maxSummaryBytes { text.removeLast() }
        return text
    }
}
