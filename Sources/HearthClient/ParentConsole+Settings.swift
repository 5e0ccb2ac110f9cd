import Foundation
public import HearthCore
import HearthProtocol
import HearthTransport

extension ParentConsole {
    /// Takes back approvals of `handles` for `child`; returns the handles that stopped being known. A refusal is
    /// thrown as `ErrorReply` (e.g. `notFound` for a child of another family).
    @discardableResult
    public func revoke(_ handles: [CommunicationHandle], of child: MemberID) async throws -> [CommunicationHandle] {
        let reply = try await request(.revokeApproval(childID: child, handles: handles))
        guard case .handlesRevoked(let revoked) = reply else {
            throw TransportError.unexpectedReply(peer: "parent-device", type: reply.typeCode)
        }
        return revoked
    }

    /// The child's limits and contacts.
    public func limits(of child: MemberID) async throws -> (settings: CommunicationSettings, contacts: [Contact]) {
        let reply = try await request(.getLimits(childID: child))
        guard case .limits(_, let settings, let contacts) = reply else {
            throw TransportError.unexpectedReply(peer: "parent-device", type: reply.typeCode)
        }
        return (settings, contacts)
    }

    /// Sets the child's limits; returns them as the broker stored them.
    @discardableResult
    public func setLimits(_ settings: CommunicationSettings, of child: MemberID) async throws -> CommunicationSettings {
        let reply = try await request(.setLimits(childID: child, settings: settings))
        guard case .limits(_, let stored, _) = reply else {
            throw TransportError.unexpectedReply(peer: "parent-device", type: reply.typeCode)
        }
        return stored
    }
}

extension ParentConsole {
    /// The handles approved for `child`, by kind then value, with who approved each and when; `complete` is false
    /// when more did not fit in one reply. A refusal is thrown as `ErrorReply`.
    public func approved(of child: MemberID) async throws -> (approvals: [Approval], complete: Bool) {
        let reply = try await request(.listApproved(childID: child))
        guard case .approvedList(_, let approvals, let complete) = reply else {
            throw TransportError.unexpectedReply(peer: "parent-device", type: reply.typeCode)
        }
        return (approvals, complete)
    }
}

extension ParentConsole {
    /// Adds and removes the child's contacts; returns the limits and contacts as the broker stored them. A refusal is
    /// thrown as `ErrorReply`.
    @discardableResult
    public func editContacts(
        of child: MemberID, add: [Contact] = [], remove: [CommunicationHandle] = []
    ) async throws -> (settings: CommunicationSettings, contacts: [Contact]) {
        let reply = try await request(.editContacts(childID: child, add: add, remove: remove))
        guard case .limits(_, let settings, let contacts) = reply else {
            throw TransportError.unexpectedReply(peer: "parent-device", type: reply.typeCode)
        }
        return (settings, contacts)
    }

    /// Sets the child's Screen Time passcode; an empty one removes it. A refusal is thrown as `ErrorReply`.
    public func setPasscode(_ passcode: String, of child: MemberID) async throws {
        _ = try await request(.setPasscode(childID: child, passcode: passcode))
    }
}
