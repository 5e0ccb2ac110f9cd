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
        case .hello(let minVersion, let maxVersion):
            w.u8(minVersion)
            w.u8(maxVersion)
        case .sync(let after, let limit):
            w.u64(after)
            w.u32(limit)
        case .ask(let app, let question):
            w.string(app)
            w.question(question)
        case .answer(let questionID, let choiceID, let message):
            w.uuid(questionID)
            w.string(choiceID)
            w.optional(message) { $0.string($1) }
        case .knownHandles(let handles), .knownHandlesResult(let handles):
            w.array(handles) { $0.handle($1) }
        case .ping, .ok, .listPending:
            break
        case .welcome(let version, let family, let member, let device, let role, let head):
            w.u8(version)
            w.optional(family) { $0.string($1) }
            w.string(member)
            w.string(device)
            w.u8(role.rawValue)
            w.u64(head)
        case .events(let head, let events):
            w.u64(head)
            w.array(events) { $0.event($1) }
        case .askAccepted(let asked, let resolution):
            w.askedQuestion(asked)
            w.optional(resolution) { $0.resolution($1) }
        case .answerAccepted(let resolution):
            w.resolution(resolution)
        case .pong(let head), .heartbeat(let head):
            w.u64(head)
        case .error(let reply):
            w.u16(reply.code.rawValue)
            // Cut on a character boundary: a cut inside a multi-byte character must not empty the message.
            var message = reply.message
            while message.utf8.count > Wire.maxStringBytes { message.removeLast() }
            w.string(message)
        case .event(let event):
            w.event(event)
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
        case .pendingList(let list):
            w.array(list) { $0.askedQuestion($1) }
        case .parentWatch(let after):
            w.optional(after) { $0.u64($1) }
        case .parentWatching(let head):
            w.u64(head)
        case .parentNotification(let notification):
            w.parentNotification(notification)
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
        case .approveInPerson(let questionID, let passcode):
            w.uuid(questionID)
            w.string(passcode)
        case .limits(let child, let settings, let contacts):
            w.string(child)
            w.settings(settings)
            w.array(contacts) { $0.contact($1) }
        case .handlesRevoked(let handles):
            w.array(handles) { $0.handle($1) }
        case .redirect(let redirect):
            w.brokerRedirect(redirect)
        case .adminRequest(let text), .adminResult(let text):
            w.string(text)
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
        case .hello:
            let minVersion = try r.u8("hello.minVersion")
            let maxVersion = try r.u8("hello.maxVersion")
            message = .hello(minVersion: minVersion, maxVersion: maxVersion)
        case .sync:
            let after = try r.u64("sync.after")
            let limit = try r.u32("sync.limit")
            message = .sync(after: after, limit: limit)
        case .ask:
            let app = try r.string("ask.appBundleID", max: 255)
            message = .ask(appBundleID: app, question: try r.question())
        case .answer:
            let id = try r.uuid("answer.questionID")
            let choiceID = try r.string("answer.choiceID", max: 64)
            let text = try r.optional("answer.message") { (r: inout WireReader) throws(WireError) in
                try r.string("answer.message")
            }
            message = .answer(questionID: id, choiceID: choiceID, message: text)
        case .knownHandles:
            message = .knownHandles(
                try r.array("knownHandles.handles", max: 1000) { (r: inout WireReader) throws(WireError) in
                    try r.handle()
                })
        case .ping: message = .ping
        case .welcome:
            let version = try r.u8("welcome.version")
            let family = try r.optional("welcome.familyID") { (r: inout WireReader) throws(WireError) in
                try r.identifier("welcome.familyID")
            }
            let member = try r.identifier("welcome.memberID")
            let device = try r.identifier("welcome.deviceID")
            let code = try r.u8("welcome.role")
            guard let role = MemberRole(rawValue: code) else {
                throw .unknownEnumValue(field: "welcome.role", value: UInt64(code))
            }
            let head = try r.u64("welcome.head")
            message = .welcome(
                version: version, familyID: family, memberID: member, deviceID: device, role: role, head: head)
        case .events:
            let head = try r.u64("events.head")
            message = .events(
                head: head,
                events: try r.array("events.events", max: Int(Wire.maxEventsPerSync)) {
                    (r: inout WireReader) throws(WireError) in try r.event()
                })
        case .askAccepted:
            let asked = try r.askedQuestion()
            message = .askAccepted(
                asked,
                try r.optional("askAccepted.resolution") { (r: inout WireReader) throws(WireError) in try r.resolution()
                })
        case .answerAccepted: message = .answerAccepted(try r.resolution())
        case .knownHandlesResult:
            message = .knownHandlesResult(
                try r.array("knownHandlesResult.handles", max: 1000) { (r: inout WireReader) throws(WireError) in
                    try r.handle()
                })
        case .pong: message = .pong(head: try r.u64("pong.head"))
        case .error:
            let raw = try r.u16("error.code")
            let text = try r.string("error.message")
            message = .error(ErrorReply(ErrorCode(rawValue: raw) ?? .unknown, text))
        case .event: message = .event(try r.event())
        case .heartbeat: message = .heartbeat(head: try r.u64("heartbeat.head"))
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
        case .withdraw:
            message = .withdraw(questionID: try r.uuid("withdraw.questionID"))
        case .listApproved:
            message = .listApproved(childID: try r.identifier("listApproved.childID"))
        case .approvedList:
            message = try r.approvedList()
        case .history: message = .history(try r.historyQuery())
        case .historyPage: message = try r.historyPage()
        case .approveInPerson:
            let id = try r.uuid("approveInPerson.questionID")
            message = .approveInPerson(
                questionID: id, passcode: try r.string("approveInPerson.passcode", max: Wire.maxPasscodeBytes))
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
        case .redirect: message = .redirect(try r.brokerRedirect())
        case .parentWatch:
            message = .parentWatch(
                after: try r.optional("parentWatch.after") { (r: inout WireReader) throws(WireError) in
                    try r.u64("parentWatch.after")
                })
        case .parentWatching: message = .parentWatching(head: try r.u64("parentWatching.head"))
        case .parentNotification: message = .parentNotification(try r.parentNotification())
        case .adminRequest: message = .adminRequest(try r.string("adminRequest.json", max: Wire.maxAdminBytes))
        case .adminResult: message = .adminResult(try r.string("adminResult.json", max: Wire.maxAdminBytes))
        case _ where AgeRangeMessage.owns(code):
            message = .ageRange(try r.ageRangeMessage(type: type))
        default:
            throw .unknownMessageType(code)
        }
        try r.finish()
        return Envelope(requestID: requestID, message: message)
    }
}
