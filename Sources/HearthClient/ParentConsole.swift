import Foundation
import HearthCore
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

    /// Answers with the standard `approve` choice, and `message` if given.
    @discardableResult
    public func approve(_ questionID: UUID, message: String? = nil) async throws -> Resolution {
        try await answer(questionID, choiceID: PermissionChoice.approve.id, message: message)
    }

    /// Answers with the standard `decline` choice, and `message` if given.
    @discardableResult
    public func decline(_ questionID: UUID, message: String? = nil) async throws -> Resolution {
        try await answer(questionID, choiceID: PermissionChoice.decline.id, message: message)
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
