public import Foundation

/// How a question ended: the choice, who made it, and why.
public struct Resolution: Hashable, Sendable {
    /// Why a question has the answer it has.
    public enum Reason: UInt8, Hashable, Sendable, CaseIterable {
        /// A parent or guardian chose.
        case parentAnswered = 1
        /// The child is in no family: default response, nobody asked.
        case defaultNoFamily = 2
        /// The child's Communication Limits are off: default response, nobody asked.
        case defaultLimitsOff = 3
        /// Every handle was already known: approved at once.
        case alreadyKnown = 4
        /// Nobody answered before the expiration date.
        case expired = 5
        /// The child left the family while the question was pending: default response.
        case childRemoved = 6
        /// A parent approved on the child's device with the Screen Time passcode.
        case approvedInPerson = 7
        /// The child's app withdrew the question before anyone answered: default response.
        case withdrawn = 8
        /// A parent declined on the child's device with the Screen Time passcode (protocol version 4: an older peer
        /// reads it as `parentAnswered`).
        case declinedInPerson = 9

        /// The reason as a peer of `version` reads it: before version 4, `declinedInPerson` is `parentAnswered`
        /// (a parent did choose; the peer cannot say where).
        public func forPeer(version: UInt8) -> Reason {
            self == .declinedInPerson && version < 4 ? .parentAnswered : self
        }
    }

    public var questionID: UUID
    public var choice: PermissionChoice
    public var reason: Reason
    /// The parent who chose, when one did.
    public var answeredBy: MemberID?
    public var resolvedAt: Date
    /// The answering parent's words to the child's app, when they gave some; `ShortText` rules.
    public var message: String?

    public init(
        questionID: UUID, choice: PermissionChoice, reason: Reason, answeredBy: MemberID?, resolvedAt: Date,
        message: String? = nil
    ) {
        self.questionID = questionID
        self.choice = choice
        self.reason = reason
        self.answeredBy = answeredBy
        self.resolvedAt = resolvedAt
        self.message = message
    }
}
