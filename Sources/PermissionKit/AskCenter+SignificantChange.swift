import Foundation
import HearthCore

extension AskCenter {
    /// Asks the child's parents to approve a significant change to the app, through `permissionFlow` (iOS 27).
    ///
    /// Apple anchors its sheet in `context`; Hearth has no UI and ignores it. `.askToApprove` and
    /// `.acknowledgmentAlert` send the question and return `.askToApprove(didSend: true)`; the parents' answer
    /// comes through `responses(for: SignificantAppUpdateTopic.self)`. A question no parent can be asked (a child in
    /// no family) gets its default response there at once, and every flow returns `.askToApprove(didSend: false)`.
    ///
    /// `.acknowledgmentAlert` first records the child's acknowledgment of the update (who, the app, its description,
    /// when) in the family's history, where the parents read it (`hearthctl parent history`); past 10 an hour for this
    /// app it throws `AskError.systemError` wrapping `AskFailure.notAvailable` (`rateLimited`) and sends nothing.
    ///
    /// `.approveInPerson` sends it and waits for its answer: `.approveInPerson(approved: true)` when a parent typed
    /// the Screen Time passcode on this device to approve (`hearthctl child approve-in-person`), `approved: false`
    /// when they typed it to decline (`hearthctl child decline-in-person`), `.askToApprove(didSend: true)` when a
    /// parent answered remotely or the question ended otherwise. Cancelling the calling task while it waits
    /// withdraws the question and returns `.cancel`. Throws `AskError`.
    nonisolated(nonsending)
        public func askSignificantChangePermission(
            for question: PermissionQuestion<SignificantAppUpdateTopic>, permissionFlow: PermissionFlow,
            in context: Any?
        ) async throws -> PermissionResult
    {
        guard permissionFlow == .approveInPerson else {
            if permissionFlow == .acknowledgmentAlert {
                do {
                    try await communicationLimits.recordAcknowledgment(of: question.topic.description)
                } catch let failure as AskFailure {
                    throw AskError(failure)
                }
            }
            return .askToApprove(didSend: try await send(question))
        }
        let answers = InPersonAnswer(hub: communicationLimits.hub, questionID: question.id)
        defer { answers.stop() }
        // Resolved at once, nobody to approve in person: the response stays for the app's own iterations.
        guard try await send(question) else { return .askToApprove(didSend: false) }
        let connection = communicationLimits.connection
        Task { await connection.keepReceiving() }
        guard let response = await answers.next() else {
            // The calling task is cancelled: the withdrawal runs in a task of its own, which is not.
            let limits = communicationLimits
            await Task { try? await limits.withdraw(question) }.value
            return .cancel
        }
        switch response.reason {
        case .approvedInPerson: return .approveInPerson(approved: true)
        case .declinedInPerson: return .approveInPerson(approved: false)
        default: return .askToApprove(didSend: true)
        }
    }
}

/// Waits for the response to one question without taking any other: the hub offers it every response, and it
/// claims only its own, which stays with the app's `responses(for:)` iterations too.
struct InPersonAnswer: Sendable {
    private let hub: ResponseHub
    private let subscriber: UInt64
    private let stream: AsyncStream<PermissionResponse<SignificantAppUpdateTopic>>

    init(hub: ResponseHub, questionID: UUID) {
        let (stream, continuation) = AsyncStream.makeStream(of: PermissionResponse<SignificantAppUpdateTopic>.self)
        self.hub = hub
        self.stream = stream
        subscriber = hub.subscribe(
            offer: { asked, resolution in
                guard asked.question.id == questionID,
                    let response = PermissionResponse<SignificantAppUpdateTopic>(asked: asked, resolution: resolution)
                else { return false }
                continuation.yield(response)
                return true
            },
            finish: { continuation.finish() })
    }

    /// The response, or nil when the task was cancelled or the connection closed first.
    func next() async -> PermissionResponse<SignificantAppUpdateTopic>? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }

    /// Leaves the hub; the response, if any, stays for the app's own iterations.
    func stop() { hub.unsubscribe(subscriber) }
}
