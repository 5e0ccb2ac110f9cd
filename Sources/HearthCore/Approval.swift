public import Foundation

/// A handle a parent approved for a child: what `hearthctl parent approved` lists, with who approved it and when.
public struct Approval: Hashable, Sendable {
    public var handle: CommunicationHandle
    /// The question whose approval made it known; nil when the broker no longer has it.
    public var questionID: UUID?
    /// The parent who approved; nil when approved in person (with the passcode) or not known.
    public var approvedBy: MemberID?
    /// When it was approved, when known.
    public var approvedAt: Date?
    /// Approved on the child's device with the Screen Time passcode.
    public var inPerson: Bool

    public init(
        handle: CommunicationHandle, questionID: UUID?, approvedBy: MemberID?, approvedAt: Date?, inPerson: Bool
    ) {
        self.handle = handle
        self.questionID = questionID
        self.approvedBy = approvedBy
        self.approvedAt = approvedAt
        self.inPerson = inPerson
    }
}
