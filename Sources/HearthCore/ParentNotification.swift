public import Foundation

/// Something a parent should be told at once, as parent-device records it from the events it applies: a new
/// question, a question answered (by a guardian, or in person), expired or otherwise closed, a child's settings
/// changed by someone else.
public struct ParentNotification: Hashable, Sendable, Identifiable {
    /// What happened.
    public enum Kind: UInt8, Hashable, Sendable, CaseIterable {
        /// A child asked a question that waits for a parent.
        case questionPending = 1
        /// A guardian answered a question, or a parent approved it in person on the child's device.
        case questionAnswered = 2
        /// Nobody answered before the question's expiration date; its default choice was given.
        case questionExpired = 3
        /// The question was closed otherwise (e.g. the child left the family).
        case questionClosed = 4
        /// A question still waits and expires soon: told once, before it expires.
        case questionReminder = 5
        /// The child's app withdrew the question; nobody can answer it any more.
        case questionWithdrawn = 6
        /// Another guardian (or the child, for its own contacts) changed a child's limits, contacts, approvals,
        /// passcode or age range sharing; `answeredBy` names who.
        case settingsChanged = 7
        /// The child acknowledged a significant update of an app (Apple's `acknowledgmentAlert`): an adult is told,
        /// as `significantAppChangeRequiresAdultNotification` wants; the app's description is quoted in `text`.
        case updateAcknowledged = 8

        /// The kind's name, as `hearthctl parent watch --json` prints it.
        public var name: String {
            switch self {
            case .questionPending: "questionPending"
            case .questionAnswered: "questionAnswered"
            case .questionExpired: "questionExpired"
            case .questionClosed: "questionClosed"
            case .questionReminder: "questionReminder"
            case .questionWithdrawn: "questionWithdrawn"
            case .settingsChanged: "settingsChanged"
            case .updateAcknowledged: "updateAcknowledged"
            }
        }
    }

    /// The parent device's own number for it, from 1, increasing: what a watcher resumes after.
    public var id: UInt64
    public var kind: Kind
    /// When the event behind it was recorded by the broker.
    public var createdAt: Date
    public var childMemberID: MemberID
    public var questionID: UUID?
    public var appBundleID: BundleID?
    /// Who answered, for `questionAnswered`; who changed the settings, for `settingsChanged`.
    public var answeredBy: MemberID?
    /// The choice given, for every kind but `questionPending`, `questionReminder` and `questionWithdrawn`; the text
    /// says its answer (`approved`, `declined`), the app's title only beside it.
    public var choiceID: String?
    /// One line for a person, e.g. `emma asks to talk to custom:mallory in com.example.chat`.
    public var text: String

    public init(
        id: UInt64, kind: Kind, createdAt: Date, childMemberID: MemberID, questionID: UUID?, appBundleID: BundleID?,
        answeredBy: MemberID?, choiceID: String?, text: String
    ) {
        self.id = id
        self.kind = kind
        self.createdAt = createdAt
        self.childMemberID = childMemberID
        self.questionID = questionID
        self.appBundleID = appBundleID
        self.answeredBy = answeredBy
        self.choiceID = choiceID
        self.text = text
    }
}
