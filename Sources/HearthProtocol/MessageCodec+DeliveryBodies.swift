import Foundation
import HearthCore

/// The bodies of the messages between a device and the broker that carry questions, answers and events
/// (docs/PROTOCOL.md §6.1-6.3).
extension MessageCodec {
    /// Writes the body of a delivery message; `encode` routes only those here.
    static func writeDelivery(_ message: Message, to w: inout WireWriter) {
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
        case .ping:
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
        case .eventBatch(let events):
            w.array(events) { $0.event($1) }
        case .redirect(let redirect):
            w.brokerRedirect(redirect)
        default:
            preconditionFailure("\(message.typeCode) is not a delivery message")
        }
    }

    /// Reads the body of a delivery message of `type`; `decode` routes only those here.
    static func readDelivery(_ type: MessageType, from r: inout WireReader) throws(WireError) -> Message {
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
        case .eventBatch: message = .eventBatch(try r.eventBatch())
        case .redirect: message = .redirect(try r.brokerRedirect())
        default:
            throw .unknownMessageType(type.rawValue)
        }
        return message
    }
}
