public import Foundation

/// A child's question as it travels and is stored: Apple's `PermissionQuestion` without the generic topic.
public struct Question: Hashable, Sendable, Identifiable {
    /// What a question is about.
    public enum Topic: Hashable, Sendable {
        case communication(CommunicationTopic)
        case significantAppUpdate(description: String)
    }

    /// Made by the asking app; also the idempotency key of the ask.
    public var id: UUID
    public var topic: Topic
    /// What a parent may answer; at least one approval and one denial.
    public var choices: [PermissionChoice]
    /// The choice given when nobody is asked (no family, limits off); the most restrictive by default.
    public var defaultChoiceID: String
    /// After this moment nobody can answer.
    public var expirationDate: Date?
    /// A short word from the app (or the child through it) to the parents; `ShortText` rules.
    public var note: String?

    public init(
        id: UUID = UUID(), topic: Topic, choices: [PermissionChoice] = [.approve, .decline],
        defaultChoiceID: String = PermissionChoice.decline.id, expirationDate: Date? = nil, note: String? = nil
    ) {
        self.id = id
        self.topic = topic
        self.choices = choices
        self.defaultChoiceID = defaultChoiceID
        self.expirationDate = expirationDate
        self.note = note
    }

    /// The choice named `defaultChoiceID`, if it is one of `choices`.
    public var defaultChoice: PermissionChoice? { choices.first { $0.id == defaultChoiceID } }

    /// The handles this question asks about (empty for a non-communication topic).
    public var handles: [CommunicationHandle] {
        if case .communication(let topic) = topic { return topic.handles }
        return []
    }
}
