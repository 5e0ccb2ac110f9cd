public import Foundation
public import HearthCore

/// A parent's answer to a question, or the default response when nobody was asked.
public struct PermissionResponse<Topic: QuestionTopic>: Sendable, Hashable {
    /// Why a question has the answer it has.
    public typealias Reason = Resolution.Reason

    /// The choice made.
    public var choice: PermissionChoice
    /// The question answered.
    public var question: PermissionQuestion<Topic>
    /// Why: a parent answered, or a default response (no family, limits off), already known, expired…
    public var reason: Reason
    /// The member id of the parent who chose, when one did.
    public var answeredBy: String?
    /// When the question was resolved.
    public var resolvedAt: Date
    /// The parent's words with the answer ("ask me again after the weekend"), when they wrote some.
    public var message: String?

    /// A response with every field given.
    public init(
        choice: PermissionChoice, question: PermissionQuestion<Topic>, reason: Reason, answeredBy: String?,
        resolvedAt: Date, message: String? = nil
    ) {
        self.choice = choice
        self.question = question
        self.reason = reason
        self.answeredBy = answeredBy
        self.resolvedAt = resolvedAt
        self.message = message
    }

    /// The response for `asked` resolved by `resolution`; nil when the question's topic is not a `Topic`.
    public init?(asked: AskedQuestion, resolution: Resolution) {
        guard let question = PermissionQuestion<Topic>(asked.question) else { return nil }
        self.init(
            choice: resolution.choice, question: question, reason: resolution.reason,
            answeredBy: resolution.answeredBy, resolvedAt: resolution.resolvedAt, message: resolution.message
        )
    }
}
