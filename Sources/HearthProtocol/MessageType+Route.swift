import Foundation

extension MessageType {
    /// True for the commands a device sends the broker's ingress (docs/PROTOCOL.md §6, "→ broker"); the broker
    /// answers any other decodable message with `unknownMessageType`. The switch has no default, so a new type
    /// cannot be added without saying where it goes.
    public var isBrokerCommand: Bool {
        switch self {
        case .hello, .sync, .ask, .answer, .knownHandles, .ping, .setLimits, .getLimits, .editContacts,
            .revokeApproval, .setPasscode, .approveInPerson, .declineInPerson, .withdraw, .listApproved, .history,
            .ageRangeRequest,
            .ageSetSharing,
            .ageAnswerPrompt,
            .ageClearCache, .ageRegulatoryRequest, .ageAcknowledgeUpdate:
            true
        case .welcome, .events, .askAccepted, .answerAccepted, .knownHandlesResult, .pong, .limits, .handlesRevoked,
            .approvedList, .historyPage,
            .redirect,
            .error, .event, .heartbeat, .eventBatch, .appHello, .appWelcome, .appResponse, .appAck, .ok, .listPending,
            .pendingList,
            .adminRequest, .adminResult, .ageWatch, .ageListPrompts, .ageRangeResult, .ageRangePrompted,
            .ageSharingSet, .agePromptAnswered, .ageCacheCleared, .agePromptList, .ageRangeUpdate,
            .ageRegulatoryFeatures, .parentWatch, .parentWatching, .parentNotification:
            false
        }
    }
}

extension Message {
    /// Whether this is one of the broker's commands (`MessageType.isBrokerCommand`).
    public var isBrokerCommand: Bool { type.isBrokerCommand }
}
