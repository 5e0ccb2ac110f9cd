import Foundation
import HearthCore
import HearthProtocol
import Testing

/// Words both ways (docs/PROTOCOL.md §5.5, §5.7, §6.1): an app's note on a question, a parent's message with an
/// answer, in exact bytes.
@Suite struct GoldenBytesWordsTests {
    static let questionID = UUID(uuidString: "123e4567-e89b-12d3-a456-426614174000")!
    static let uuid: [UInt8] = [
        0x12, 0x3E, 0x45, 0x67, 0xE8, 0x9B, 0x12, 0xD3, 0xA4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00,
    ]

    func expectFrame(
        _ message: Message, requestID: UInt64, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(MessageCodec.encode(message, requestID: requestID) == bytes, sourceLocation: sourceLocation)
        #expect(
            try MessageCodec.decode(bytes) == Envelope(requestID: requestID, message: message),
            sourceLocation: sourceLocation)
    }

    /// The ask of PROTOCOL.md §9.1, with the note "hi\n" (148 bytes).
    @Test func askWithANote() throws {
        let question = Question(
            id: Self.questionID,
            topic: .communication(
                CommunicationTopic(
                    personInformation: [
                        PersonInformation(handle: CommunicationHandle(value: "sam@example.com", kind: .emailAddress))
                    ], actions: [.message])),
            note: "hi\n")
        let bundle: [UInt8] = [0, 0, 0, 0x10] + Array("com.example.chat".utf8)
        let person: [UInt8] = [0, 0, 0, 1, 0x02, 0, 0, 0, 0x0F] + Array("sam@example.com".utf8) + [0, 0]
        let choices: [UInt8] =
            [0, 0, 0, 2, 0, 0, 0, 7] + Array("approve".utf8) + [0, 0, 0, 7] + Array("Approve".utf8) + [1]
            + [0, 0, 0, 7] + Array("decline".utf8) + [0, 0, 0, 7] + Array("Decline".utf8) + [2]
        let frame: [UInt8] =
            [0x01, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x0B] + bundle + Self.uuid + [0x01] + person + [0, 0, 0, 1, 0x01]
            + choices + [0, 0, 0, 7] + Array("decline".utf8)
            + [0x00]  // no expirationDate
            + [0x01, 0, 0, 0, 3, 0x68, 0x69, 0x0A]  // note present: "hi\n"
        #expect(frame.count == 148)
        try expectFrame(.ask(appBundleID: "com.example.chat", question: question), requestID: 11, frame)
    }

    @Test func answerWithAMessage() throws {
        try expectFrame(
            .answer(questionID: Self.questionID, choiceID: "decline", message: "not yet"), requestID: 12,
            [0x01, 0x04, 0, 0, 0, 0, 0, 0, 0, 0x0C] + Self.uuid
                + [0, 0, 0, 7] + Array("decline".utf8)
                + [0x01, 0, 0, 0, 7] + Array("not yet".utf8))
    }

    @Test func aResolutionCarriesTheMessage() throws {
        let resolution = Resolution(
            questionID: Self.questionID, choice: .decline, reason: .parentAnswered, answeredBy: "alice",
            resolvedAt: Date(timeIntervalSince1970: 1), message: "ok")
        try expectFrame(
            .answerAccepted(resolution), requestID: 12,
            [0x01, 0x84, 0, 0, 0, 0, 0, 0, 0, 0x0C] + Self.uuid
                + [0, 0, 0, 7] + Array("decline".utf8) + [0, 0, 0, 7] + Array("Decline".utf8) + [0x02]
                + [0x01]  // reason: parentAnswered
                + [0x01, 0, 0, 0, 5] + Array("alice".utf8)
                + [0, 0, 0, 0, 0, 0, 0x03, 0xE8]  // resolvedAt: 1000 ms
                + [0x01, 0, 0, 0, 2, 0x6F, 0x6B])  // message: "ok"
    }

    @Test func aMessageOverTheStringLimitIsRefusedByName() throws {
        var frame = MessageCodec.encode(
            .answer(questionID: Self.questionID, choiceID: "approve", message: String(repeating: "x", count: 4097)))
        #expect(throws: WireError.tooLong(field: "answer.message", length: 4097, max: 4096)) {
            try MessageCodec.decode(frame)
        }
        frame = MessageCodec.encode(.answer(questionID: Self.questionID, choiceID: "approve", message: "ok"))
        frame[frame.count - 2] = 0xFF  // "ok" becomes two bytes that are not UTF-8
        frame[frame.count - 1] = 0xFE
        #expect(throws: WireError.invalidUTF8(field: "answer.message")) { try MessageCodec.decode(frame) }
    }
}

/// A parent's list of approved handles (docs/PROTOCOL.md §6.1 0x0E, §6.2 0x8A), in exact bytes.
@Suite struct GoldenBytesApprovedTests {
    @Test func listAndList() throws {
        let list = MessageCodec.encode(.listApproved(childID: "emma"), requestID: 5)
        #expect(list == [0x01, 0x0E, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 4, 0x65, 0x6D, 0x6D, 0x61])
        let approval = Approval(
            handle: CommunicationHandle(value: "bob", kind: .custom), questionID: nil, approvedBy: "m",
            approvedAt: Date(timeIntervalSince1970: 1), inPerson: false)
        let reply: Message = .approvedList(childID: "emma", approvals: [approval], complete: true)
        let frame = MessageCodec.encode(reply, requestID: 5)
        #expect(
            frame
                == [0x01, 0x8A, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 4, 0x65, 0x6D, 0x6D, 0x61]  // header, childID
                + [0, 0, 0, 1, 0x03, 0, 0, 0, 3, 0x62, 0x6F, 0x62]  // one approval: custom "bob"
                + [0x00, 0x01, 0, 0, 0, 1, 0x6D]  // no question id; approvedBy "m"
                + [0x01, 0, 0, 0, 0, 0, 0, 0x03, 0xE8, 0x00]  // approvedAt 1000 ms; not in person
                + [0x01])  // complete
        #expect(try MessageCodec.decode(frame).message == reply)
    }
}
