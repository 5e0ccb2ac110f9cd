import Foundation
import HearthCore

/// The bodies of the messages on a device daemon's local socket and the admin socket: apps, parent consoles,
/// operators (docs/PROTOCOL.md §6.4-6.7).
extension MessageCodec {
    /// Writes the body of a local message; `encode` routes only those here.
    static func writeLocal(_ message: Message, to w: inout WireWriter) {
        switch message {
        case .appHello(let bundleID):
            w.string(bundleID)
        case .appWelcome(let member, let connected):
            w.optional(member) { $0.string($1) }
            w.bool(connected)
        case .appResponse(let inboxID, let asked, let resolution):
            w.u64(inboxID)
            w.askedQuestion(asked)
            w.resolution(resolution)
        case .appAck(let inboxID):
            w.u64(inboxID)
        case .ok, .listPending:
            break
        case .pendingList(let list):
            w.array(list) { $0.askedQuestion($1) }
        case .parentWatch(let after):
            w.optional(after) { $0.u64($1) }
        case .parentWatching(let head):
            w.u64(head)
        case .parentNotification(let notification):
            w.parentNotification(notification)
        case .adminRequest(let text), .adminResult(let text):
            w.string(text)
        default:
            preconditionFailure("\(message.typeCode) is not a local message")
        }
    }

    /// Reads the body of a local message of `type`; `decode` routes only those here.
    static func readLocal(_ type: MessageType, from r: inout WireReader) throws(WireError) -> Message {
        let message: Message
        switch type {
        case .appHello:
            let bundleID = try r.string("appHello.bundleID", max: 255)
            guard Identifier.isValidBundleID(bundleID) else {
                throw .invalidValue(field: "appHello.bundleID", reason: "must be 1-255 characters of A-Z a-z 0-9 . _ -")
            }
            message = .appHello(bundleID: bundleID)
        case .appWelcome:
            let member = try r.optional("appWelcome.memberID") { (r: inout WireReader) throws(WireError) in
                try r.identifier("appWelcome.memberID")
            }
            message = .appWelcome(memberID: member, brokerConnected: try r.bool("appWelcome.brokerConnected"))
        case .appResponse:
            let inboxID = try r.u64("appResponse.inboxID")
            let asked = try r.askedQuestion()
            message = .appResponse(inboxID: inboxID, asked, try r.resolution())
        case .appAck: message = .appAck(inboxID: try r.u64("appAck.inboxID"))
        case .ok: message = .ok
        case .listPending: message = .listPending
        case .pendingList:
            message = .pendingList(
                try r.array("pendingList.questions") { (r: inout WireReader) throws(WireError) in try r.askedQuestion()
                })
        case .parentWatch:
            message = .parentWatch(
                after: try r.optional("parentWatch.after") { (r: inout WireReader) throws(WireError) in
                    try r.u64("parentWatch.after")
                })
        case .parentWatching: message = .parentWatching(head: try r.u64("parentWatching.head"))
        case .parentNotification: message = .parentNotification(try r.parentNotification())
        case .adminRequest: message = .adminRequest(try r.string("adminRequest.json", max: Wire.maxAdminBytes))
        case .adminResult: message = .adminResult(try r.string("adminResult.json", max: Wire.maxAdminBytes))
        default:
            throw .unknownMessageType(type.rawValue)
        }
        return message
    }
}
