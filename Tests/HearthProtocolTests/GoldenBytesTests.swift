import Foundation
import HearthCore
import HearthProtocol
import Testing

/// Exact frames, so the layout documented for other-language clients cannot drift unnoticed.
@Suite struct GoldenBytesTests {
    @Test func hello() throws {
        let frame = MessageCodec.encode(.hello(minVersion: 1, maxVersion: 1), requestID: 7)
        #expect(frame == [
            0x01,  // version
            0x01,  // type: hello
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,  // request id, u64 big-endian
            0x01,  // minVersion
            0x01,  // maxVersion
        ])
        #expect(try MessageCodec.decode(frame) == Envelope(requestID: 7, message: .hello(minVersion: 1, maxVersion: 1)))
    }

    @Test func answer() throws {
        let message = Message.answer(questionID: Fixtures.id1, choiceID: "approve")
        let frame = MessageCodec.encode(message, requestID: 0x0102_0304_0506_0708)
        #expect(frame == [
            0x01,  // version
            0x04,  // type: answer
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // request id
            0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,  // uuid, RFC 4122 order
            0x00, 0x00, 0x00, 0x07,  // string length, u32 big-endian
            0x61, 0x70, 0x70, 0x72, 0x6F, 0x76, 0x65,  // "approve"
        ])
        #expect(try MessageCodec.decode(frame) == Envelope(requestID: 0x0102_0304_0506_0708, message: message))
    }

    @Test func knownHandles() throws {
        let message = Message.knownHandles([CommunicationHandle(value: "bob", kind: .custom)])
        let frame = MessageCodec.encode(message, requestID: 1)
        #expect(frame == [
            0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // header
            0x00, 0x00, 0x00, 0x01,  // array count
            0x03,  // handle kind: custom
            0x00, 0x00, 0x00, 0x03, 0x62, 0x6F, 0x62,  // "bob"
        ])
        #expect(try MessageCodec.decode(frame).message == message)
    }

    @Test func appWelcomeAndDate() throws {
        #expect(MessageCodec.encode(.appWelcome(memberID: nil, brokerConnected: true)) == [
            0x01, 0xA0, 0, 0, 0, 0, 0, 0, 0, 0,
            0x00,  // optional: absent
            0x01,  // bool: true
        ])
        // Dates are i64 milliseconds since 1970, big-endian; 1 ms before the epoch is all ones.
        let event = Event(memberID: "m", sequence: 1, createdAt: Date(timeIntervalSince1970: -0.001), body: .handlesChanged(added: [], removed: []))
        let frame = MessageCodec.encode(.event(event))
        #expect(Array(frame[10...]) == [
            0x00, 0x00, 0x00, 0x01, 0x6D,  // memberID "m"
            0, 0, 0, 0, 0, 0, 0, 1,  // sequence
            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // createdAt = -1 ms
            0x03,  // kind: handlesChanged
            0, 0, 0, 0,  // added: none
            0, 0, 0, 0,  // removed: none
        ])
    }
}
