public import Foundation
public import HearthCore

extension Event {
    /// This event in a form that fits `Wire.maxEventBytes`, with its encoding: unchanged when it fits; else, for a
    /// question event, without the question's avatar images, then without its people's names; else `omitted`.
    /// docs/PROTOCOL.md §5.8. The broker stores and delivers only what this returns, so no event blocks a log.
    public func deliverable() -> (event: Event, body: [UInt8]) {
        let encoded = encoded()
        if encoded.count <= Wire.maxEventBytes { return (self, encoded) }
        var trimmed = self
        for level in AskedQuestion.Trim.allCases {
            switch body {
            case .questionPending(let asked):
                trimmed.body = .questionPending(asked.trimmed(level))
            case .questionResolved(let asked, let resolution):
                trimmed.body = .questionResolved(asked.trimmed(level), resolution)
            case .questionReminder(let asked):
                trimmed.body = .questionReminder(asked.trimmed(level))
            default:
                break
            }
            let bytes = trimmed.encoded()
            if bytes.count <= Wire.maxEventBytes { return (trimmed, bytes) }
        }
        let reason = "the event is \(encoded.count) bytes encoded, over the \(Wire.maxEventBytes)-byte limit"
        return Event.omitted(
            member: memberID, sequence: sequence, createdAt: createdAt, kind: body.kindCode, reason: reason)
    }

    /// The `omitted` event standing at a position whose event cannot be delivered, with its encoding.
    public static func omitted(
        member: MemberID, sequence: UInt64, createdAt: Date, kind: UInt8, reason: String
    ) -> (event: Event, body: [UInt8]) {
        var text = reason
        while text.utf8.count > Wire.maxStringBytes { text.removeLast() }
        let event = Event(
            memberID: member, sequence: sequence, createdAt: createdAt, body: .omitted(kind: kind, reason: text))
        return (event, event.encoded())
    }

    /// The event's encoding without a message header: the body of an `event` message and the broker's stored form.
    public func encoded() -> [UInt8] {
        var w = WireWriter(capacity: 256)
        w.event(self)
        return w.bytes
    }
}

extension Event.Body {
    /// The event kind code written on the wire (§5.8).
    public var kindCode: UInt8 {
        switch self {
        case .questionPending: 1
        case .questionResolved: 2
        case .handlesChanged: 3
        case .omitted: 4
        case .questionReminder: 5
        case .historyRecorded: 6
        case .ageRange(.answerChanged): 0x10
        case .ageRange(.promptOpened): 0x11
        case .ageRange(.promptClosed): 0x12
        }
    }
}

extension AskedQuestion {
    /// What may be left out of a question that does not fit, in the order it is left out.
    public enum Trim: CaseIterable, Sendable {
        /// Every person's avatar image.
        case avatars
        /// Avatar images and every person's name; the handles stay, so the question keeps its meaning.
        case avatarsAndNames
    }

    /// The question with what `level` names left out.
    public func trimmed(_ level: Trim) -> AskedQuestion {
        guard case .communication(var topic) = question.topic else { return self }
        topic.personInformation = topic.personInformation.map { person in
            var person = person
            person.avatarImage = nil
            if level == .avatarsAndNames { person.nameComponents = nil }
            return person
        }
        var copy = self
        copy.question.topic = .communication(topic)
        return copy
    }
}
