import Foundation
import HearthCore

/// Encodes and decodes one Hearth frame: a 10-byte header (version, type, request id) and the type's body.
public enum MessageCodec {
    /// The frame for `message`.
    public static func encode(_ message: Message, requestID: UInt64 = 0) -> [UInt8] {
        var w = WireWriter(capacity: 128)
        w.u8(Wire.version)
        w.u8(message.typeCode)
        w.u64(requestID)
        switch message {
        case .hello, .sync, .ask, .answer, .knownHandles, .ping, .welcome, .events, .askAccepted, .answerAccepted,
            .knownHandlesResult, .pong, .error, .event, .heartbeat, .eventBatch, .redirect:
            writeDelivery(message, to: &w)
        case .setLimits, .getLimits, .editContacts, .revokeApproval, .setPasscode, .approveInPerson, .declineInPerson,
            .withdraw, .listApproved, .approvedList, .history, .historyPage, .limits, .handlesRevoked:
            writeSettings(message, to: &w)
        case .appHello, .appWelcome, .appResponse, .appAck, .ok, .listPending, .pendingList, .parentWatch,
            .parentWatching, .parentNotification, .adminRequest, .adminResult:
            writeLocal(message, to: &w)
        case .ageRange(let message):
            w.ageRangeMessage(message)
        }
        return w.bytes
    }

    /// The request id of a frame whose header is intact, even if its body is not; lets a peer address its error reply.
    public static func peekRequestID(_ frame: [UInt8]) -> UInt64 {
        guard frame.count >= Wire.headerSize else { return 0 }
        var r = WireReader(frame, offset: 2)
        return (try? r.u64("requestID")) ?? 0
    }

    /// Decodes one frame, validating every field; throws a `WireError` naming the first rule broken.
    public static func decode(_ frame: [UInt8]) throws(WireError) -> Envelope {
        guard frame.count <= Wire.maxFrameSize else {
            throw .tooLong(field: "frame", length: frame.count, max: Wire.maxFrameSize)
        }
        var r = WireReader(frame)
        let version = try r.u8("header.version")
        guard version >= Wire.minimumVersion, version <= Wire.version else { throw .unsupportedVersion(version) }
        let code = try r.u8("header.type")
        guard let type = MessageType(rawValue: code) else { throw .unknownMessageType(code) }
        let requestID = try r.u64("header.requestID")
        let message: Message
        switch type {
        case .hello, .sync, .ask, .answer, .knownHandles, .ping, .welcome, .events, .askAccepted, .answerAccepted,
            .knownHandlesResult, .pong, .error, .event, .heartbeat, .eventBatch, .redirect:
            message = try readDelivery(type, from: &r)
        case .setLimits, .getLimits, .editContacts, .revokeApproval, .setPasscode, .approveInPerson, .declineInPerson,
            .withdraw, .listApproved, .approvedList, .history, .historyPage, .limits, .handlesRevoked:
            message = try readSettings(type, from: &r)
        case .appHello, .appWelcome, .appResponse, .appAck, .ok, .listPending, .pendingList, .parentWatch,
            .parentWatching, .parentNotification, .adminRequest, .adminResult:
            message = try readLocal(type, from: &r)
        case _ where AgeRangeMessage.owns(code):
            message = .ageRange(try r.ageRangeMessage(type: type))
        default:
            throw .unknownMessageType(code)
        }
        try r.finish()
        return Envelope(requestID: requestID, message: message)
    }
}
