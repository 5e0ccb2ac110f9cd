import Foundation

extension Message {
    /// True for the commands a device sends the broker's ingress (docs/PROTOCOL.md §6, "→ broker"). The broker
    /// acts on these and answers any other decodable message with `unknownMessageType`. The switch has no default,
    /// so a new message type cannot be added without saying where it goes.
    public var isBrokerCommand: Bool {
        switch self {
        case .hello, .sync, .ask, .answer, .knownHandles, .ping, .setLimits, .getLimits, .editContacts,
             .revokeApproval, .setPasscode, .approveInPerson:
            true
        case .ageRange(let message):
            message.isBrokerCommand
        case .welcome, .events, .askAccepted, .answerAccepted, .knownHandlesResult, .pong, .limits, .handlesRevoked,
             .error, .event, .heartbeat, .appHello, .appWelcome, .appResponse, .appAck, .ok, .listPending, .pendingList,
             .adminRequest, .adminResult:
            false
        }
    }
}
