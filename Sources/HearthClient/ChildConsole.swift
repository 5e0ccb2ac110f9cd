public import Foundation
public import HearthCore
import HearthProtocol
import HearthTransport

/// A person at a child's device: the child's own limits and contacts, and a parent approving or declining a question in person
/// with the Screen Time passcode, through child-device's socket.
public final class ChildConsole: Sendable {
    private let client: LocalClient

    public init(socketPath: String) async throws {
        client = try LocalClient(endpoint: LocalEndpoints.ipc(socketPath), peer: "child-device")
        try await client.start()
    }

    /// A parent, at the child's device, declines the question now by typing the passcode (reason
    /// `declinedInPerson`). A refusal is thrown as `ErrorReply` (`wrongPasscode`, `lockedOut`, `unsupportedVersion`
    /// when the family broker is older, ...).
    @discardableResult
    public func declineInPerson(_ questionID: UUID, passcode: String) async throws -> Resolution {
        try await answered(.declineInPerson(questionID: questionID, passcode: passcode))
    }

    /// A parent, at the child's device, approves the question now by typing the passcode. A refusal is thrown as
    /// `ErrorReply` (`wrongPasscode`, `alreadyAnswered`, ...).
    @discardableResult
    public func approveInPerson(_ questionID: UUID, passcode: String) async throws -> Resolution {
        try await answered(.approveInPerson(questionID: questionID, passcode: passcode))
    }

    /// The resolution an in-person answer was accepted with.
    private func answered(_ message: Message) async throws -> Resolution {
        let reply = try await client.request(message)
        guard case .answerAccepted(let resolution) = reply else {
            throw TransportError.unexpectedReply(peer: "child-device", type: reply.typeCode)
        }
        return resolution
    }

    /// The child's limits and contacts, as the broker has them.
    public func limits(of child: MemberID) async throws -> (settings: CommunicationSettings, contacts: [Contact]) {
        let reply = try await client.request(.getLimits(childID: child))
        guard case .limits(_, let settings, let contacts) = reply else {
            throw TransportError.unexpectedReply(peer: "child-device", type: reply.typeCode)
        }
        return (settings, contacts)
    }

    public func close() async { await client.close() }
}
