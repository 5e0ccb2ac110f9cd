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

    /// Answers with the given choice; a refusal is thrown as `ErrorReply` (e.g. `alreadyAnswered`).
    @discardableResult
    public func answer(_ questionID: UUID, choiceID: String) async throws -> Resolution {
        let reply = try await client.request(.answer(questionID: questionID, choiceID: choiceID))
        guard case .answerAccepted(let resolution) = reply else {
            throw TransportError.unexpectedReply(peer: "parent-device", type: reply.typeCode)
        }
        return resolution
    }

    @discardableResult
    public func approve(_ questionID: UUID) async throws -> Resolution {
        try await answer(questionID, choiceID: PermissionChoice.approve.id)
    }

    @discardableResult
    public func decline(_ questionID: UUID) async throws -> Resolution {
        try await answer(questionID, choiceID: PermissionChoice.decline.id)
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
