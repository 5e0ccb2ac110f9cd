import Foundation
import HearthCore
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
}
