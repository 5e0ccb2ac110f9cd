import Foundation
import HearthCore
import HearthProtocol
import Testing

@Suite struct MessageRoundTripTests {
    @Test(arguments: Array(Fixtures.messages.enumerated()))
    func roundTrips(index: Int, message: Message) throws {
        let requestID = UInt64(index) &* 0x9E37_79B9_7F4A_7C15
        let frame = MessageCodec.encode(message, requestID: requestID)
        #expect(frame[0] == Wire.version)
        #expect(frame[1] == message.typeCode)
        #expect(MessageCodec.peekRequestID(frame) == requestID)
        let envelope = try MessageCodec.decode(frame)
        #expect(envelope == Envelope(requestID: requestID, message: message))
        // Encoding is deterministic, so the decoded message encodes to the same bytes.
        #expect(MessageCodec.encode(envelope.message, requestID: requestID) == frame)
    }

    @Test func fixturesCoverEveryTypeCode() {
        #expect(Set(Fixtures.messages.map(\.typeCode)) == Fixtures.typeCodes)
    }

    @Test func largestAvatarRoundTrips() throws {
        let avatar = (0..<Wire.maxAvatarBytes).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let question = Question(
            id: Fixtures.id1,
            topic: .communication(
                CommunicationTopic(personInformation: [PersonInformation(handle: Fixtures.dragon, avatarImage: avatar)])
            )
        )
        let message = Message.ask(appBundleID: "com.example.chat", question: question)
        #expect(try MessageCodec.decode(MessageCodec.encode(message)).message == message)
    }

    @Test func maximalLengthsAreAccepted() throws {
        let handle = CommunicationHandle(value: String(repeating: "é", count: Wire.maxHandleBytes / 2), kind: .custom)
        let id = String(repeating: "a", count: Identifier.maxLength)
        let bundle = String(repeating: "b", count: 255)
        let messages: [Message] = [
            .knownHandles(Array(repeating: handle, count: 1000)),
            .welcome(version: 1, familyID: id, memberID: id, deviceID: id, role: .child, head: 0),
            .appHello(bundleID: bundle),
            .error(ErrorReply(.internalError, String(repeating: "x", count: Wire.maxStringBytes))),
        ]
        for message in messages {
            #expect(try MessageCodec.decode(MessageCodec.encode(message)).message == message)
        }
    }

    @Test func actionsAreWrittenSortedWhateverTheSetOrder() {
        var a = CommunicationTopic(personInformation: [PersonInformation(handle: Fixtures.dragon)])
        a.actions = [.friend, .message, .call]
        var b = a
        b.actions = [.call, .friend, .message]
        let qa = Question(id: Fixtures.id1, topic: .communication(a))
        let qb = Question(id: Fixtures.id1, topic: .communication(b))
        #expect(
            MessageCodec.encode(.ask(appBundleID: "x", question: qa))
                == MessageCodec.encode(.ask(appBundleID: "x", question: qb)))
    }
}
