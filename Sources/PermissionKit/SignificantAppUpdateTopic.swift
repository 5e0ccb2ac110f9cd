public import HearthCore

/// A question asking a parent to approve a significant change to the app, described in words.
public struct SignificantAppUpdateTopic: QuestionTopic, CustomStringConvertible {
    /// The kind of a significant-update topic.
    public static let id = "significantAppUpdate"

    /// What changes, as the parent will read it.
    public var description: String

    /// A topic describing the update to the parent.
    public init(description: String) {
        self.description = description
    }

    /// `.significantAppUpdate(description:)`.
    public var questionTopic: Question.Topic { .significantAppUpdate(description: description) }

    /// The update topic inside `questionTopic`; nil for any other kind.
    public init?(questionTopic: Question.Topic) {
        guard case .significantAppUpdate(let description) = questionTopic else { return nil }
        self.description = description
    }
}
