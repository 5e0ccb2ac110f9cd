public import Foundation
public import HearthCore
import Synchronization

/// A child's request for a parent's permission, about a `Topic`.
///
/// A `final class`, as Apple's is: copies of a reference share the question. The two fields an app may set after
/// making it, `expirationDate` and `note`, sit behind a lock, so the question can cross tasks.
public final class PermissionQuestion<Topic: QuestionTopic>: Sendable, Hashable, Identifiable, Codable {
    /// Made by the app; asking twice with the same id is one question.
    public let id: UUID
    /// What the child asks about.
    public let topic: Topic
    /// What a parent may answer; needs at least one approval and one denial.
    public let choices: [PermissionChoice]
    /// The answer given without asking anyone (no family, Communication Limits off); must be one of `choices`.
    public let defaultChoice: PermissionChoice

    private struct Settable: Sendable {
        var expirationDate: Date?
        var note: String?
    }
    private let settable: Mutex<Settable>

    /// After this moment nobody can answer.
    public var expirationDate: Date? {
        get { settable.withLock { $0.expirationDate } }
        set { settable.withLock { $0.expirationDate = newValue } }
    }

    /// A short word to the parents, shown with the question: why the child asks. At most 280 characters and 1024
    /// bytes of UTF-8, with no control characters but newlines (`ShortText`).
    public var note: String? {
        get { settable.withLock { $0.note } }
        set { settable.withLock { $0.note = newValue } }
    }

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
        settable = Mutex(Settable(expirationDate: expirationDate, note: note))
    }

    /// The question `question` carries; nil when its topic is not a `Topic`.
    ///
    /// A default choice id that names none of the choices (which a valid question never has) becomes the most
    /// restrictive choice, so the result is always usable.
    public convenience init?(_ question: Question) {
        guard let topic = Topic(questionTopic: question.topic) else { return nil }
        self.init(
            id: question.id, topic: topic, choices: question.choices,
            defaultChoice: question.defaultChoice, expirationDate: question.expirationDate, note: question.note
        )
    }

    static func mostRestrictive(of choices: [PermissionChoice]) -> PermissionChoice {
        choices.first { $0.answer == .denial } ?? .decline
    }

    /// Two questions are equal when every field is: the same id asked with other words is another question.
    public static func == (lhs: PermissionQuestion, rhs: PermissionQuestion) -> Bool {
        lhs.id == rhs.id && lhs.topic == rhs.topic && lhs.choices == rhs.choices
            && lhs.defaultChoice == rhs.defaultChoice && lhs.expirationDate == rhs.expirationDate
            && lhs.note == rhs.note
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(topic)
    }
}

extension PermissionQuestion where Topic == CommunicationTopic {
    /// A question about communicating with the person behind `handle`.
    public convenience init(handle: CommunicationHandle) {
        self.init(handles: [handle])
    }

    /// A question about communicating with the people behind `handles`; each person carries only a handle.
    public convenience init(handles: some Sequence<CommunicationHandle>) {
        self.init(
            communicationTopic: CommunicationTopic(personInformation: handles.map { PersonInformation(handle: $0) }))
    }

    /// A question about `communicationTopic`, with the standard choices and `.decline` as the default.
    public convenience init(communicationTopic: CommunicationTopic) {
        self.init(topic: communicationTopic)
    }
}

extension PermissionQuestion where Topic == SignificantAppUpdateTopic {
    /// A question about `significantAppUpdateTopic`, with the standard choices and `.decline` as the default.
    public convenience init(significantAppUpdateTopic: SignificantAppUpdateTopic) {
        self.init(topic: significantAppUpdateTopic)
    }
}
