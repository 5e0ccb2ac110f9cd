import Foundation
public import HearthCore

/// The one size budget for a question: an encoded `Question` of at most `maxQuestionBytes` fits, with everything the
/// broker and the daemons add around it, in every message built from it (`ask`, `askAccepted`, the `questionPending`
/// and `questionResolved` events, a sync's `events` reply, `appResponse`, `pendingList`). docs/PROTOCOL.md §4.1.
///
/// PermissionKit, child-device and the broker each check it where a question enters, so a question that could wedge a
/// member's event log is refused before anything is stored.
public enum QuestionBudget {
    /// Bytes of every frame kept for the fields around a question. `largestEnvelope` is what they take at most today;
    /// the difference is room for a later version to add fields without shrinking the budget.
    public static let envelopeReserve = 4096
    /// The largest encoded question accepted: 1,044,480 bytes (1 MiB − 4 KiB).
    public static let maxQuestionBytes = Wire.maxFrameSize - envelopeReserve

    /// The most any message adds around one question, measured on messages whose other fields are all at their
    /// longest (64-byte ids, a 255-byte bundle id, the longest choice). A test keeps it within `envelopeReserve`.
    public static let largestEnvelope: Int = {
        let question = Question(topic: .significantAppUpdate(description: "x"))
        let questionBytes = encodedSize(of: question)
        let longID = String(repeating: "i", count: 64)
        let longChoice = PermissionChoice(
            id: String(repeating: "c", count: 64), title: String(repeating: "t", count: 256), answer: .approval)
        let asked = AskedQuestion(
            question: question, childMemberID: longID, appBundleID: String(repeating: "a", count: 255),
            askingDeviceID: longID, askedAt: Date())
        let resolution = Resolution(
            questionID: question.id, choice: longChoice, reason: .parentAnswered, answeredBy: longID,
            resolvedAt: Date(), message: String(repeating: "🐉", count: ShortText.maxBytes / 4))
        let event = Event(
            memberID: longID, sequence: .max, createdAt: Date(), body: .questionResolved(asked, resolution))
        let messages: [Message] = [
            .ask(appBundleID: asked.appBundleID, question: question),
            .askAccepted(asked, resolution),
            .event(event),
            .events(head: .max, events: [event]),
            .appResponse(inboxID: .max, asked, resolution),
            .pendingList([asked]),
        ]
        return messages.map { MessageCodec.encode($0, requestID: .max).count - questionBytes }.max()!
    }()

    /// Why a question is over the budget: its encoded size, the budget, and its largest field.
    public struct Violation: Error, Sendable, Hashable, CustomStringConvertible {
        /// The question's encoded size in bytes.
        public var bytes: Int
        /// `QuestionBudget.maxQuestionBytes`.
        public var budget: Int
        /// The decode name of the question's largest field, e.g. `topic.personInformation[0].avatarImage`.
        public var largestField: String
        /// That field's size in bytes.
        public var largestFieldBytes: Int

        public init(bytes: Int, budget: Int, largestField: String, largestFieldBytes: Int) {
            self.bytes = bytes
            self.budget = budget
            self.largestField = largestField
            self.largestFieldBytes = largestFieldBytes
        }

        public var description: String {
            "question is \(bytes) bytes encoded, over its budget of \(budget) bytes; its largest field is "
                + "\(largestField) (\(largestFieldBytes) bytes): use smaller avatar images or fewer people"
        }
    }

    /// Nil when `question` fits the budget, else why not.
    public static func check(_ question: Question) -> Violation? {
        let bytes = encodedSize(of: question)
        guard bytes > maxQuestionBytes else { return nil }
        let (field, fieldBytes) = largestField(of: question)
        return Violation(bytes: bytes, budget: maxQuestionBytes, largestField: field, largestFieldBytes: fieldBytes)
    }

    /// The size of `WireWriter.question(question)`, counted without encoding it.
    public static func encodedSize(of question: Question) -> Int {
        var size = 16 + 1  // id, topic kind
        switch question.topic {
        case .communication(let topic):
            size += 4 + topic.personInformation.reduce(0) { $0 + personSize($1) }
            size += 4 + topic.actions.count
        case .significantAppUpdate(let description):
            size += 4 + description.utf8.count
        }
        size += 4 + question.choices.reduce(0) { $0 + 4 + $1.id.utf8.count + 4 + $1.title.utf8.count + 1 }
        size += 4 + question.defaultChoiceID.utf8.count
        size += 1 + (question.expirationDate == nil ? 0 : 8)
        size += 1 + (question.note.map { 4 + $0.utf8.count } ?? 0)
        return size
    }

    private static func personSize(_ person: PersonInformation) -> Int {
        var size = 1 + 4 + person.handle.value.utf8.count
        size += 1 + (person.nameComponents.map(namesSize) ?? 0)
        size += 1 + (person.avatarImage.map { 4 + $0.count } ?? 0)
        return size
    }

    private static func namesSize(_ name: PersonNameComponents) -> Int {
        [name.givenName, name.middleName, name.familyName, name.nickname]
            .reduce(0) { $0 + 1 + ($1.map { 4 + $0.utf8.count } ?? 0) }
    }

    private static func largestField(of question: Question) -> (String, Int) {
        let choices = question.choices.reduce(0) { $0 + $1.id.utf8.count + $1.title.utf8.count }
        var fields: [(String, Int)] = [
            ("question.choices", choices), ("question.note", question.note?.utf8.count ?? 0),
        ]
        switch question.topic {
        case .communication(let topic):
            for (index, person) in topic.personInformation.enumerated() {
                let path = "topic.personInformation[\(index)]"
                fields.append(("\(path).handle.value", person.handle.value.utf8.count))
                fields.append(("\(path).nameComponents", person.nameComponents.map(namesSize) ?? 0))
                fields.append(("\(path).avatarImage", person.avatarImage?.count ?? 0))
            }
        case .significantAppUpdate(let description):
            fields.append(("topic.description", description.utf8.count))
        }
        return fields.max { $0.1 < $1.1 }!
    }
}
