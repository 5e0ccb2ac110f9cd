import Foundation
public import HearthCore

extension WireReader {
    public mutating func handle(_ field: String = "handle") throws(WireError) -> CommunicationHandle {
        let code = try u8("\(field).kind")
        guard let kind = CommunicationHandle.Kind(rawValue: code) else {
            throw .unknownEnumValue(field: "\(field).kind", value: UInt64(code))
        }
        let value = try string("\(field).value", max: Wire.maxHandleBytes)
        guard !value.isEmpty else { throw .invalidValue(field: "\(field).value", reason: "must not be empty") }
        // Stores keep handles as SQLite TEXT, read back as C strings: a NUL would cut the value short (found by
        // BrokerCommandFuzzer: a contact stored as "\0…" came back empty, and the reply no longer decoded).
        guard !value.utf8.contains(0) else {
            throw .invalidValue(field: "\(field).value", reason: "must not contain U+0000 (NUL)")
        }
        return CommunicationHandle(value: value, kind: kind)
    }

    public mutating func person() throws(WireError) -> PersonInformation {
        let handle = try handle("person.handle")
        let name = try optional("person.nameComponents") {
            (r: inout WireReader) throws(WireError) -> PersonNameComponents in
            var n = PersonNameComponents()
            n.givenName = try r.optional("name.givenName") { (r: inout WireReader) throws(WireError) in
                try r.string("name.givenName")
            }
            n.middleName = try r.optional("name.middleName") { (r: inout WireReader) throws(WireError) in
                try r.string("name.middleName")
            }
            n.familyName = try r.optional("name.familyName") { (r: inout WireReader) throws(WireError) in
                try r.string("name.familyName")
            }
            n.nickname = try r.optional("name.nickname") { (r: inout WireReader) throws(WireError) in
                try r.string("name.nickname")
            }
            return n
        }
        let avatar = try optional("person.avatarImage") { (r: inout WireReader) throws(WireError) in
            try r.blob("person.avatarImage", max: Wire.maxAvatarBytes)
        }
        return PersonInformation(handle: handle, nameComponents: name, avatarImage: avatar)
    }

    public mutating func choice() throws(WireError) -> PermissionChoice {
        let id = try string("choice.id", max: 64)
        let title = try string("choice.title", max: 256)
        let code = try u8("choice.answer")
        guard let answer = PermissionChoice.Answer(rawValue: code) else {
            throw .unknownEnumValue(field: "choice.answer", value: UInt64(code))
        }
        return PermissionChoice(id: id, title: title, answer: answer)
    }

    public mutating func question() throws(WireError) -> Question {
        let id = try uuid("question.id")
        let topic: Question.Topic
        switch try u8("question.topic") {
        case 1:
            let people = try array("topic.personInformation", max: 32) { (r: inout WireReader) throws(WireError) in
                try r.person()
            }
            let codes = try array("topic.actions", max: 16) { (r: inout WireReader) throws(WireError) in
                try r.u8("topic.action")
            }
            var actions = Set<CommunicationTopic.Action>()
            for code in codes {
                guard let action = CommunicationTopic.Action(rawValue: code) else {
                    throw .unknownEnumValue(field: "topic.action", value: UInt64(code))
                }
                actions.insert(action)
            }
            topic = .communication(CommunicationTopic(personInformation: people, actions: actions))
        case 2:
            topic = .significantAppUpdate(description: try string("topic.description", max: 1024))
        case let other:
            throw .unknownEnumValue(field: "question.topic", value: UInt64(other))
        }
        let choices = try array("question.choices", max: 8) { (r: inout WireReader) throws(WireError) in try r.choice()
        }
        let defaultChoiceID = try string("question.defaultChoiceID", max: 64)
        let expiration = try optional("question.expirationDate") { (r: inout WireReader) throws(WireError) in
            try r.date("question.expirationDate")
        }
        let note = try optional("question.note") { (r: inout WireReader) throws(WireError) in
            try r.string("question.note")
        }
        return Question(
            id: id, topic: topic, choices: choices, defaultChoiceID: defaultChoiceID, expirationDate: expiration,
            note: note)
    }

    public mutating func askedQuestion() throws(WireError) -> AskedQuestion {
        let q = try question()
        let child = try identifier("asked.childMemberID")
        let app = try string("asked.appBundleID", max: 255)
        let device = try identifier("asked.askingDeviceID")
        let at = try date("asked.askedAt")
        return AskedQuestion(question: q, childMemberID: child, appBundleID: app, askingDeviceID: device, askedAt: at)
    }

    public mutating func resolution() throws(WireError) -> Resolution {
        let id = try uuid("resolution.questionID")
        let choice = try choice()
        let code = try u8("resolution.reason")
        guard let reason = Resolution.Reason(rawValue: code) else {
            throw .unknownEnumValue(field: "resolution.reason", value: UInt64(code))
        }
        let by = try optional("resolution.answeredBy") { (r: inout WireReader) throws(WireError) in
            try r.identifier("resolution.answeredBy")
        }
        let at = try date("resolution.resolvedAt")
        let message = try optional("resolution.message") { (r: inout WireReader) throws(WireError) in
            try r.string("resolution.message")
        }
        return Resolution(
            questionID: id, choice: choice, reason: reason, answeredBy: by, resolvedAt: at, message: message)
    }

    public mutating func event() throws(WireError) -> Event {
        let member = try identifier("event.memberID")
        let sequence = try u64("event.sequence")
        let createdAt = try date("event.createdAt")
        let body: Event.Body
        switch try u8("event.kind") {
        case 1: body = .questionPending(try askedQuestion())
        case 2: body = .questionResolved(try askedQuestion(), try resolution())
        case 3:
            let added = try array("event.added") { (r: inout WireReader) throws(WireError) in try r.handle() }
            let removed = try array("event.removed") { (r: inout WireReader) throws(WireError) in try r.handle() }
            body = .handlesChanged(added: added, removed: removed)
        case 4: body = .omitted(kind: try u8("event.omittedKind"), reason: try string("event.reason"))
        case 5: body = .questionReminder(try askedQuestion())
        case 6: body = .historyRecorded(try historyEntry())
        case let kind where (0x10...0x1F).contains(kind): body = .ageRange(try ageRangeEvent(kind: kind))
        case let other: throw .unknownEnumValue(field: "event.kind", value: UInt64(other))
        }
        return Event(memberID: member, sequence: sequence, createdAt: createdAt, body: body)
    }
}
