import Foundation
import HearthCore
import HearthProtocol

extension CommunicationLimits {
    /// Refuses an ask in Apple's spellings as Apple does, before anything is stored or sent: `contactSyncNotSetup`
    /// when the child-device was never welcomed by its broker (it has not received the child's contacts and known
    /// handles, so it cannot tell known people from unknown ones), `communicationLimitsNotEnabled` when the broker
    /// says the child's Communication Limits are off.
    ///
    /// Hearth's own `ask(_:)` skips this: there, limits off give the question's default response at once, as the talk
    /// describes. When the broker cannot be reached the limits cannot be read; the ask then goes ahead (it is queued
    /// and, with limits off, later gets its default response). Any other failure to read them is left to the ask
    /// itself, which reports it in its own terms (an adult's device: `notAvailable`).
    func checkApplePreconditions() async throws(AskError) {
        let member: MemberID?
        do {
            member = try await connection.servedMember()
        } catch {
            throw AskError(AskFailure(error, socketPath: socketPath))
        }
        guard let member else { throw .contactSyncNotSetup }
        guard let reply = try? await connection.request(.getLimits(childID: member)),
            case .limits(_, let settings, _) = reply
        else { return }
        if !settings.enabled { throw .communicationLimitsNotEnabled }
    }
}
