public import HearthCore

/// What a `PermissionQuestion` is about: Apple's protocol, `Codable` with a static `id` naming the kind of topic.
/// Hearth also carries every topic as a `Question.Topic` on the wire, hence the two requirements beyond Apple's.
public protocol QuestionTopic: Codable, Sendable, Hashable {
    /// The kind of topic, the same for every value of the type; responses are routed to the type with this id.
    static var id: String { get }
    /// The topic in its wire form.
    var questionTopic: Question.Topic { get }
    /// The topic from its wire form; nil when `questionTopic` is a different kind of topic.
    init?(questionTopic: Question.Topic)
}

/// The name Hearth used before Apple's SDK named the protocol `QuestionTopic`.
@available(*, deprecated, renamed: "QuestionTopic")
public typealias PermissionTopic = QuestionTopic
