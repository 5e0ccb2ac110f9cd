import Foundation
import HearthCore

/// A child's request for a parent's permission, about a `Topic`.
public struct PermissionQuestion<Topic: PermissionTopic>: Sendable, Hashable, Identifiable {
    /// Made by the app; asking twice with the same id is one question.
    public var id: UUID
    /// What the child asks about.
    public var topic: Topic
    /// What a parent may answer; needs at least one approval and one denial.
    public var choices: [PermissionChoice]
    /// The answer given without asking anyone (no family, Communication Limits off); must be one of `choices`.
    public var defaultChoice: PermissionChoice
    /// After this moment nobody can answer.
    public var expirationDate: Date?
    /// A short word to the parents, shown with the question: why the child asks. At most 280 characters and 1024
    /// bytes of UTF-8, with no control characters but newlines (`ShortText`).
    public var note: String?

    /// A question about `topic`. A nil `defaultChoice` means the most restrictive choice: the first denial among
    /// `choices`, else `.decline`.
    public init(
        id: UUID = UUID(), topic: Topic, choices: [PermissionChoice] = [.approve, .decline],
        defaultChoice: PermissionChoice? = nil, expirationDate: Date? = nil, note: String? = nil
    ) {
        self.id = id
        self.topic = topic
        self.choices = choices
        self.defaultChoice = defaultChoice ?? Self.mostRestrictive(of: choices)
        self.expirationDate = expirationDate
        self.note = note
    }

    /// The question `question` carries; nil when its topic is not a `Topic`.
    ///
    /// A default choice id that names none of the choices (which a valid question never has) becomes the most
    /// restrictive choice, so the result is always usable.
    public init?(_ question: Question) {
        guard let topic = Topic(questionTopic: question.topic) else { return nil }
        self.init(
            id: question.id, topic: topic, choices: question.choices,
            defaultChoice: question.defaultChoice, expirationDate: question.expirationDate, note: question.note
        )
    }

    static func mostRestrictive(of choices: [PermissionChoice]) -> PermissionChoice {
        choices.first { $0.answer == .denial } ?? .decline
    }
}

extension PermissionQuestion where Topic == CommunicationTopic {
    /// A question about communicating with the person behind `handle`.
    public init(handle: CommunicationHandle) {
        self.init(handles: [handle])
    }

    /// A question about communicating with the people behind `handles`; each person carries only a handle.
    public init(handles: some Sequence<CommunicationHandle>) {
        self.init(
            communicationTopic: CommunicationTopic(personInformation: handles.map { PersonInformation(handle: $0) }))
    }

    /// A question about `communicationTopic`, with the standard choices and `.decline` as the default.
    public init(communicationTopic: CommunicationTopic) {
        self.init(topic: communicationTopic)
    }
}

extension PermissionQuestion where Topic == SignificantAppUpdateTopic {
    /// A question about `significantAppUpdateTopic`, with the standard choices and `.decline` as the default.
    public init(significantAppUpdateTopic: SignificantAppUpdateTopic) {
        self.init(topic: significantAppUpdateTopic)
    }
}
