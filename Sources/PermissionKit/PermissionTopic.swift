import HearthCore

/// What a `PermissionQuestion` is about. Hearth carries every topic as a `Question.Topic` on the wire.
public protocol PermissionTopic: Sendable, Hashable {
    /// The topic in its wire form.
    var questionTopic: Question.Topic { get }
    /// The topic from its wire form; nil when `questionTopic` is a different kind of topic.
    init?(questionTopic: Question.Topic)
}
