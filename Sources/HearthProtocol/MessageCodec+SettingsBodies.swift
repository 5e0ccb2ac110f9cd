import Foundation
import HearthCore

/// The bodies of a parent's settings, approvals and history messages and their replies (docs/PROTOCOL.md §6.1, §6.2).
extension MessageCodec {
    /// Writes the body of a settings message; `encode` routes only those here.
    static func writeSettings(_ message: Message, to w: inout WireWriter) {
        switch message {
        case .setLimits(let child, let settings):
            w.string(child)
            w.settings(settings)
        case .getLimits(let child):
            w.string(child)
        case .editContacts(let child, let add, let remove):
            w.string(child)
            w.array(add) { $0.contact($1) }
            w.array(remove) { $0.handle($1) }
        case .revokeApproval(let child, let handles):
            w.string(child)
            w.array(handles) { $0.handle($1) }
        case .setPasscode(let child, let passcode):
            w.string(child)
            w.string(passcode)
        case .approveInPerson(let questionID, let passcode), .declineInPerson(let questionID, let passcode):
            w.uuid(questionID)
            w.string(passcode)
        case .withdraw(let questionID):
            w.uuid(questionID)
        case .listApproved(let child):
            w.string(child)
        case .approvedList(let child, let approvals, let complete):
            w.string(child)
            w.array(approvals) { $0.approval($1) }
            w.bool(complete)
        case .history(let query):
            w.historyQuery(query)
        case .historyPage(let child, let entries, let next):
            w.string(child)
            w.array(entries) { $0.historyEntry($1) }
            w.optional(next) { $0.u64($1) }
        case .limits(let child, let settings, let contacts):
            w.string(child)
            w.settings(settings)
            w.array(contacts) { $0.contact($1) }
        case .handlesRevoked(let handles):
            w.array(handles) { $0.handle($1) }
        default:
            preconditionFailure("\(message.typeCode) is not a settings message")
        }
    }

    /// Reads the body of a settings message of `type`; `decode` routes only those here.
    static func readSettings(_ type: MessageType, from r: inout WireReader) throws(WireError) -> Message {
        let message: Message
        switch type {
        case .setLimits:
            let child = try r.identifier("setLimits.childID")
            message = .setLimits(childID: child, settings: try r.settings("setLimits.settings"))
        case .getLimits: message = .getLimits(childID: try r.identifier("getLimits.childID"))
        case .editContacts:
            let child = try r.identifier("editContacts.childID")
            let add = try r.array("editContacts.add", max: 1000) { (r: inout WireReader) throws(WireError) in
                try r.contact()
            }
            let remove = try r.array("editContacts.remove", max: 1000) { (r: inout WireReader) throws(WireError) in
                try r.handle()
            }
            message = .editContacts(childID: child, add: add, remove: remove)
        case .revokeApproval:
            let child = try r.identifier("revokeApproval.childID")
            message = .revokeApproval(
                childID: child,
                handles: try r.array("revokeApproval.handles", max: 1000) { (r: inout WireReader) throws(WireError) in
                    try r.handle()
                })
        case .setPasscode:
            let child = try r.identifier("setPasscode.childID")
            message = .setPasscode(
                childID: child, passcode: try r.string("setPasscode.passcode", max: Wire.maxPasscodeBytes))
        case .approveInPerson:
            let id = try r.uuid("approveInPerson.questionID")
            message = .approveInPerson(
                questionID: id, passcode: try r.string("approveInPerson.passcode", max: Wire.maxPasscodeBytes))
        case .declineInPerson:
            let id = try r.uuid("declineInPerson.questionID")
            message = .declineInPerson(
                questionID: id, passcode: try r.string("declineInPerson.passcode", max: Wire.maxPasscodeBytes))
        case .withdraw:
            message = .withdraw(questionID: try r.uuid("withdraw.questionID"))
        case .listApproved:
            message = .listApproved(childID: try r.identifier("listApproved.childID"))
        case .approvedList:
            message = try r.approvedList()
        case .history: message = .history(try r.historyQuery())
        case .historyPage: message = try r.historyPage()
        case .limits:
            let child = try r.identifier("limits.childID")
            let settings = try r.settings("limits.settings")
            message = .limits(
                childID: child, settings: settings,
                contacts: try r.array("limits.contacts") { (r: inout WireReader) throws(WireError) in try r.contact() })
        case .handlesRevoked:
            message = .handlesRevoked(
                try r.array("handlesRevoked.handles", max: 1000) { (r: inout WireReader) throws(WireError) in
                    try r.handle()
                })
        default:
            throw .unknownMessageType(type.rawValue)
        }
        return message
    }
}
