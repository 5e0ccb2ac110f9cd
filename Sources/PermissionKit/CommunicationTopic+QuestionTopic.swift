public import HearthCore

extension HearthCore.CommunicationTopic: QuestionTopic {
    /// The kind of a communication topic.
    public static let id = "communication"

    /// `.communication(self)`.
    public var questionTopic: Question.Topic { .communication(self) }

    /// The communication topic inside `questionTopic`; nil for any other kind.
    public init?(questionTopic: Question.Topic) {
        guard case .communication(let topic) = questionTopic else { return nil }
        self = topic
    }
}
