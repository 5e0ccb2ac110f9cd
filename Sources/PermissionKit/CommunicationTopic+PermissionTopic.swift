import HearthCore

extension HearthCore.CommunicationTopic: PermissionTopic {
    /// `.communication(self)`.
    public var questionTopic: Question.Topic { .communication(self) }

    /// The communication topic inside `questionTopic`; nil for any other kind.
    public init?(questionTopic: Question.Topic) {
        guard case .communication(let topic) = questionTopic else { return nil }
        self = topic
    }
}
