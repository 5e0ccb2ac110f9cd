public import Foundation

/// One entry of a member's event log, numbered per member from 1 without gaps.
public struct Event: Hashable, Sendable {
    /// What happened.
    public enum Body: Hashable, Sendable {
        /// A child asked; sent to the child's parents and to the child's own devices.
        case questionPending(AskedQuestion)
        /// A question was answered; sent to the child (every device) and to every parent.
        case questionResolved(AskedQuestion, Resolution)
        /// A pending question expires soon and nobody has answered: sent once, to the child's parents only.
        case questionReminder(AskedQuestion)
        /// Handles became known or stopped being known to the child.
        case handlesChanged(added: [CommunicationHandle], removed: [CommunicationHandle])
        /// A parent changed a child's settings (limits, contacts, approvals, passcode, age range sharing): the
        /// broker's history entry, sent to every parent of the child's family.
        case historyRecorded(HistoryEntry)
        /// Declared Age Range: an answer, a prompt, a prompt closed; on the member's own log only.
        case ageRange(AgeRangeEvent)
        /// The broker could not deliver the event at this position (it would not fit in a frame, or its stored form
        /// could not be read); `kind` is its event kind code (0 if unknown) and `reason` says why. A device advances
        /// past it, so one poisoned event never blocks a member's log.
        case omitted(kind: UInt8, reason: String)
    }

    /// The member whose log this is.
    public var memberID: MemberID
    /// Position in the member's log: the first event is 1.
    public var sequence: UInt64
    public var createdAt: Date
    public var body: Body

    public init(memberID: MemberID, sequence: UInt64, createdAt: Date, body: Body) {
        self.memberID = memberID
        self.sequence = sequence
        self.createdAt = createdAt
        self.body = body
    }
}
