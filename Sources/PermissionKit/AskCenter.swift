import Foundation
import HearthCore

/// Apple's entry point for asking (iOS 26.2): send a question to the child's parents and receive their answers, for
/// communication and significant-app-update topics alike.
///
/// It shares its connection and its responses with a `CommunicationLimits`: `AskCenter.shared` with
/// `CommunicationLimits.current`, so an app that moves from one spelling to the other gets each response once.
/// Apple's spellings throw Apple's `AskError`; Hearth's `CommunicationLimits.ask(_:)` throws `AskFailure`, with the
/// detail.
public final class AskCenter: Sendable {
    /// The instance for this process, sharing `CommunicationLimits.current`'s connection.
    public static let shared = AskCenter(CommunicationLimits.current)

    /// The instance whose connection and responses this center uses.
    public let communicationLimits: CommunicationLimits

    /// A center over `communicationLimits` (its daemon, its app, its responses).
    public init(_ communicationLimits: CommunicationLimits) {
        self.communicationLimits = communicationLimits
    }

    /// A center talking to the daemon at `socketPath` as the app `bundleID`. Nothing connects until first use.
    public convenience init(socketPath: String, bundleID: String, timeout: Duration = .seconds(5)) {
        self.init(CommunicationLimits(socketPath: socketPath, bundleID: bundleID, timeout: timeout))
    }

    /// Sends `question` to the child's parents. Apple presents a sheet anchored in `context` (a view controller or a
    /// window); Hearth has no UI, so `context` is ignored and the question goes straight to the child-device daemon.
    ///
    /// Returns once the daemon has taken the question; the answer comes through `responses(for:)`, also when it is
    /// a default response at once (a child in no family). A significant-update question goes to the parents whatever
    /// the child's Communication Limits. Throws `AskError` (`invalidQuestion`, `notAvailable`, `systemError`…); for a
    /// communication question, `communicationLimitsNotEnabled` when the child's Communication Limits are off and
    /// `contactSyncNotSetup` when the child-device has not yet synced with its broker, in both cases with nothing
    /// stored or sent (Hearth's `CommunicationLimits.ask(_:)` gives the default response instead).
    nonisolated(nonsending)
        public func ask<Topic: QuestionTopic>(_ question: PermissionQuestion<Topic>, in context: Any?) async throws
    {
        _ = try await send(question)
    }

    /// `ask(_:in:)`, returning whether the question went to the parents: false when it was resolved at once without
    /// asking anyone (a child in no family; a default or already known communication question).
    func send<Topic: QuestionTopic>(_ question: PermissionQuestion<Topic>) async throws -> Bool {
        do {
            try question.validate()
            // Communication Limits govern communication questions; a significant change is the parents' own call.
            if Topic.self == CommunicationTopic.self { try await communicationLimits.checkApplePreconditions() }
            return try await communicationLimits.send(question) == nil
        } catch let failure as AskFailure {
            throw AskError(failure)
        }
    }

    /// Every response to this app's questions about `topicType`, delivered even if the app was not running when the
    /// parent answered. Each iteration is a subscription of its own; see `CommunicationLimits.updates` for when a
    /// response counts as handled.
    public func responses<Topic: QuestionTopic>(
        for topicType: Topic.Type
    ) -> some AsyncSequence<PermissionResponse<Topic>, Never> & Sendable {
        communicationLimits.responses(for: topicType)
    }
}
