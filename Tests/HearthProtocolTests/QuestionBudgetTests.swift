import Foundation
import HearthCore
import HearthProtocol
import Testing

/// The question budget: a question it accepts fits, with the longest values around it, in every message built from it.
@Suite("Question budget")
struct QuestionBudgetTests {
    /// A communication question whose encoding is exactly `bytes` long, its bulk in avatar images of at most 256 KiB.
    static func question(encodedBytes bytes: Int, names: Bool = true) -> Question {
        var name = PersonNameComponents()
        name.givenName = "Ada"
        name.nickname = "🐉"
        let people = (0..<5).map { index in
            PersonInformation(
                handle: CommunicationHandle(value: "friend\(index)", kind: .custom),
                nameComponents: names ? name : nil, avatarImage: [])
        }
        var question = Question(
            topic: .communication(CommunicationTopic(personInformation: people, actions: [.message])),
            expirationDate: Date(timeIntervalSince1970: 2_000_000_000))
        var missing = bytes - QuestionBudget.encodedSize(of: question)
        precondition(missing >= 0 && missing <= 5 * Wire.maxAvatarBytes, "no question of \(bytes) bytes this way")
        guard case .communication(var topic) = question.topic else { preconditionFailure() }
        for index in topic.personInformation.indices where missing > 0 {
            let size = min(missing, Wire.maxAvatarBytes)
            topic.personInformation[index].avatarImage = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            missing -= size
        }
        question.topic = .communication(topic)
        return question
    }

    static let longID = String(repeating: "m", count: 64)
    /// Whole milliseconds, the wire's resolution, so that decoded values compare equal.
    static let t = Date(timeIntervalSince1970: 1_750_000_000)

    /// The question as the broker would record and answer it, with every other field at its longest.
    static func derivedMessages(of question: Question) -> [Message] {
        let asked = AskedQuestion(
            question: question, childMemberID: longID, appBundleID: String(repeating: "a", count: 255),
            askingDeviceID: longID, askedAt: Self.t)
        let choice = PermissionChoice(
            id: String(repeating: "c", count: 64), title: String(repeating: "t", count: 256), answer: .denial)
        let resolution = Resolution(
            questionID: question.id, choice: choice, reason: .parentAnswered, answeredBy: longID, resolvedAt: Self.t,
            message: String(repeating: "🐉", count: ShortText.maxBytes / 4))
        let pending = Event(memberID: longID, sequence: .max, createdAt: Self.t, body: .questionPending(asked))
        let resolved = Event(
            memberID: longID, sequence: .max, createdAt: Self.t, body: .questionResolved(asked, resolution))
        return [
            .ask(appBundleID: asked.appBundleID, question: question), .askAccepted(asked, resolution), .event(pending),
            .event(resolved), .events(head: .max, events: [resolved]), .appResponse(inboxID: .max, asked, resolution),
            .pendingList([asked]),
        ]
    }

    @Test func theReserveHoldsTheLargestEnvelope() {
        #expect(QuestionBudget.largestEnvelope <= QuestionBudget.envelopeReserve)
        #expect(
            QuestionBudget.largestEnvelope > 900, "measured on the longest values: \(QuestionBudget.largestEnvelope)")
        #expect(QuestionBudget.maxQuestionBytes == 1_044_480)
    }

    @Test(arguments: [QuestionBudget.maxQuestionBytes, QuestionBudget.maxQuestionBytes - 1])
    func everyMessageBuiltFromAQuestionAtTheBudgetFitsAFrame(bytes: Int) throws {
        let question = Self.question(encodedBytes: bytes)
        #expect(QuestionBudget.check(question) == nil)
        for message in Self.derivedMessages(of: question) {
            let frame = MessageCodec.encode(message, requestID: .max)
            #expect(frame.count <= Wire.maxFrameSize, "\(message.typeCode): \(frame.count) bytes")
            #expect(try MessageCodec.decode(frame).message == message)
        }
        let event = Event(
            memberID: Self.longID, sequence: 1, createdAt: Self.t,
            body: .questionPending(
                AskedQuestion(
                    question: question, childMemberID: Self.longID, appBundleID: "a", askingDeviceID: "d",
                    askedAt: Self.t)))
        #expect(event.deliverable().event == event, "an event built from an accepted question is never trimmed")
    }

    @Test func oneByteOverTheBudgetIsRefusedNamingTheLargestField() throws {
        let question = Self.question(encodedBytes: QuestionBudget.maxQuestionBytes + 1)
        let violation = try #require(QuestionBudget.check(question))
        #expect(violation.bytes == QuestionBudget.maxQuestionBytes + 1)
        #expect(violation.budget == QuestionBudget.maxQuestionBytes)
        #expect(violation.largestField == "topic.personInformation[0].avatarImage")
        #expect(violation.largestFieldBytes == Wire.maxAvatarBytes)
        #expect(violation.description.contains("1044481 bytes encoded, over its budget of 1044480 bytes"))
    }

    @Test func aNoteCountsAgainstTheBudget() throws {
        var question = Self.question(encodedBytes: QuestionBudget.maxQuestionBytes - 8)
        #expect(QuestionBudget.check(question) == nil)
        question.note = "hello"  // 4 + 5 bytes more than without a note (its presence byte is there either way)
        let violation = try #require(QuestionBudget.check(question))
        #expect(violation.bytes == QuestionBudget.maxQuestionBytes + 1)
        let bare = Question(topic: .significantAppUpdate(description: "x"))
        let noted = Question(topic: .significantAppUpdate(description: "x"), note: String(repeating: "n", count: 200))
        #expect(QuestionBudget.encodedSize(of: noted) == QuestionBudget.encodedSize(of: bare) + 4 + 200)
    }

    @Test func theCountedSizeIsTheEncodedSize() {
        var name = PersonNameComponents()
        name.familyName = "Lovelace"
        let questions = [
            Question(topic: .significantAppUpdate(description: "A new version with video calls")),
            Question(
                topic: .communication(
                    CommunicationTopic(
                        personInformation: [
                            PersonInformation(handle: CommunicationHandle(value: "+15551234567", kind: .phoneNumber)),
                            PersonInformation(
                                handle: CommunicationHandle(value: "zoë@exämple.org", kind: .emailAddress),
                                nameComponents: name,
                                avatarImage: [1, 2, 3]),
                        ], actions: [.call, .message])), expirationDate: Self.t),
            Question(topic: .significantAppUpdate(description: "x"), note: "Please 🙏\nit has my class's quiz"),
            Self.question(encodedBytes: 300_000, names: false),
        ]
        for question in questions {
            var writer = WireWriter()
            writer.question(question)
            #expect(QuestionBudget.encodedSize(of: question) == writer.bytes.count)
        }
    }

    @Test func anEventOverItsLimitIsTrimmedThenOmittedNeverLeftUndeliverable() throws {
        // Over the budget: an older broker could have stored it.
        let question = Self.question(encodedBytes: Wire.maxFrameSize)
        let asked = AskedQuestion(
            question: question, childMemberID: "emma", appBundleID: "a", askingDeviceID: "d", askedAt: Self.t)
        let resolution = Resolution(
            questionID: question.id, choice: .approve, reason: .parentAnswered, answeredBy: "alice", resolvedAt: Self.t)
        let event = Event(memberID: "emma", sequence: 7, createdAt: Self.t, body: .questionResolved(asked, resolution))
        let (trimmed, body) = event.deliverable()
        #expect(body.count <= Wire.maxEventBytes)
        #expect(trimmed.sequence == 7)
        guard case .questionResolved(let kept, let keptResolution) = trimmed.body else {
            Issue.record("expected a trimmed questionResolved, got \(trimmed.body)")
            return
        }
        #expect(keptResolution == resolution)
        #expect(kept.question.handles == question.handles)
        #expect(kept == asked.trimmed(.avatars))
        #expect(try MessageCodec.decode(MessageCodec.eventFrame(body: body)).message == .event(trimmed))

        // Nothing to trim: the position is kept with an `omitted` event.
        let handles = (0..<2100).map {
            CommunicationHandle(value: String(repeating: "h", count: 500) + "\($0)", kind: .custom)
        }
        let huge = Event(
            memberID: "emma", sequence: 8, createdAt: Self.t, body: .handlesChanged(added: handles, removed: []))
        let (omitted, omittedBody) = huge.deliverable()
        #expect(omitted.sequence == 8)
        guard case .omitted(let kind, let reason) = omitted.body else {
            Issue.record("expected omitted, got \(omitted.body)")
            return
        }
        #expect(kind == 3)
        #expect(reason.contains("over the \(Wire.maxEventBytes)-byte limit"))
        #expect(try MessageCodec.decode(MessageCodec.eventFrame(body: omittedBody)).message == .event(omitted))
    }

    @Test func anOmittedEventHasItsDocumentedBytes() throws {
        let event = Event(
            memberID: "emma", sequence: 2, createdAt: Date(timeIntervalSince1970: 0),
            body: .omitted(kind: 1, reason: "x"))
        let frame = MessageCodec.encode(.event(event))
        let expected: [UInt8] =
            [1, 0x90, 0, 0, 0, 0, 0, 0, 0, 0]  // header, request id 0
            + [0, 0, 0, 4] + Array("emma".utf8) + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 0]
            + [4, 1, 0, 0, 0, 1, 0x78]  // kind omitted, original kind 1, reason "x"
        #expect(frame == expected)
        #expect(MessageCodec.eventFrame(body: event.encoded()) == frame)
    }

    @Test func aReplyOverTheFrameIsTrimmedOrBecomesAnError() throws {
        let question = Self.question(encodedBytes: Wire.maxFrameSize)
        let asked = AskedQuestion(
            question: question, childMemberID: "emma", appBundleID: "a", askingDeviceID: "d", askedAt: Self.t)
        let frame = MessageCodec.encodeReply(.askAccepted(asked, nil), requestID: 5)
        #expect(frame.count <= Wire.maxFrameSize)
        #expect(try MessageCodec.decode(frame).message == .askAccepted(asked.trimmed(.avatars), nil))
        #expect(try MessageCodec.decode(frame).requestID == 5)

        let list = (0..<6).map { _ in
            AskedQuestion(
                question: Self.question(encodedBytes: 1_000_000), childMemberID: "emma", appBundleID: "a",
                askingDeviceID: "d", askedAt: Self.t)
        }
        let listFrame = MessageCodec.encodeReply(.pendingList(list), requestID: 6)
        #expect(try MessageCodec.decode(listFrame).message == .pendingList(list.map { $0.trimmed(.avatars) }))

        let handles = (0..<2100).map {
            CommunicationHandle(value: String(repeating: "h", count: 500) + "\($0)", kind: .custom)
        }
        let tooBig = MessageCodec.encodeReply(.knownHandlesResult(handles), requestID: 7)
        guard case .error(let error) = try MessageCodec.decode(tooBig).message else {
            Issue.record("expected an error reply")
            return
        }
        #expect(error.code == .internalError)
    }
}
