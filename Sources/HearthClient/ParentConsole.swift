public import Foundation
public import HearthCore
import HearthProtocol
import HearthTransport

/// A person at a parent's device: lists the waiting questions and answers them through parent-device's socket.
public final class ParentConsole: Sendable {
    private let client: LocalClient

    public init(socketPath: String) async throws {
        client = try LocalClient(endpoint: LocalEndpoints.ipc(socketPath), peer: "parent-device")
        try await client.start()
    }

    /// Sends one request to parent-device and returns its reply; an error reply is thrown as `ErrorReply`.
    func request(_ message: Message) async throws -> Message {
        try await client.request(message)
    }

    /// The questions waiting for an answer, oldest first.
    public func pending() async throws -> [AskedQuestion] {
        guard case .pendingList(let list) = try await client.request(.listPending) else { return [] }
        return list
    }

    /// Answers with the given choice and, optionally, a message the child's app receives with the response. A message
    /// that breaks the `ShortText` rules is thrown as `ClientError` naming `answer.message`, and nothing is sent; a
    /// refusal is thrown as `ErrorReply` (e.g. `alreadyAnswered`).
    @discardableResult
    public func answer(_ questionID: UUID, choiceID: String, message: String? = nil) async throws -> Resolution {
        if let message, let violation = ShortText.violation(in: message, field: "answer.message") {
            throw ClientError(field: violation.field, reason: violation.reason)
        }
        let reply = try await client.request(.answer(questionID: questionID, choiceID: choiceID, message: message))
        guard case .answerAccepted(let resolution) = reply else {
            throw TransportError.unexpectedReply(peer: "parent-device", type: reply.typeCode)
        }
        return resolution
    }

    /// Approves: answers with the question's first choice whose answer is an approval, whatever its id or title,
    /// and `message` if given. A question not waiting here gets the standard `approve` id, so that the broker says
    /// why (`alreadyAnswered`, `expired`, `notFound`…).
    @discardableResult
    public func approve(_ questionID: UUID, message: String? = nil) async throws -> Resolution {
        try await answer(questionID, choiceID: try await choiceID(giving: .approval, of: questionID), message: message)
    }

    /// Declines: answers with the question's first choice whose answer is a denial, whatever its id or title (a
    /// choice with the id `decline` that approves is never sent), and `message` if given. A question not waiting
    /// here gets the standard `decline` id, so that the broker says why (`alreadyAnswered`, `expired`…); the broker
    /// refuses a question whose `decline` approves when it is asked.
    @discardableResult
    public func decline(_ questionID: UUID, message: String? = nil) async throws -> Resolution {
        try await answer(questionID, choiceID: try await choiceID(giving: .denial, of: questionID), message: message)
    }

    /// The first choice of the waiting question `questionID` that gives `answer`, nil when the question is not
    /// waiting here: what a parent means by approving or declining is the answer, never an app's id or title.
    public func choice(giving answer: PermissionChoice.Answer, of questionID: UUID) async throws -> PermissionChoice? {
        try await pending().first { $0.question.id == questionID }?.question.choices.first { $0.answer == answer }
    }

    private func choiceID(giving answer: PermissionChoice.Answer, of questionID: UUID) async throws -> String {
        try await choice(giving: answer, of: questionID)?.id ?? answer.standardChoice.id
    }

    /// Waits until a question with this id is pending here.
    public func waitForQuestion(_ id: UUID, timeout: Duration = .seconds(10)) async throws -> AskedQuestion {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = try await pending().first(where: { $0.question.id == id }) { return found }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ClientError("question \(id) did not reach this parent within \(timeout)")
    }

    public func close() async { await client.close() }
}
