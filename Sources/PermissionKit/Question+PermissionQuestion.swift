public import HearthCore

extension Question {
    /// The wire form of `question`.
    public init<Topic: QuestionTopic>(_ question: PermissionQuestion<Topic>) {
        self.init(
            id: question.id, topic: question.topic.questionTopic, choices: question.choices,
            defaultChoiceID: question.defaultChoice.id, expirationDate: question.expirationDate, note: question.note
        )
    }
}
