/// One answer a parent can give to a question.
public struct PermissionChoice: Hashable, Sendable, Identifiable {
    /// Whether a choice grants or refuses the request.
    public enum Answer: UInt8, Hashable, Sendable {
        case approval = 1
        case denial = 2
    }

    /// Stable id of the choice within its question.
    public var id: String
    /// What the parent sees.
    public var title: String
    /// Whether choosing it approves or declines.
    public var answer: Answer

    /// A choice with the given id, title and meaning.
    public init(id: String, title: String, answer: Answer) {
        self.id = id
        self.title = title
        self.answer = answer
    }

    /// The standard approving choice.
    public static let approve = PermissionChoice(id: "approve", title: "Approve", answer: .approval)
    /// The standard declining choice; the default, being the most restrictive.
    public static let decline = PermissionChoice(id: "decline", title: "Decline", answer: .denial)
}
