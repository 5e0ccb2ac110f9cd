import Foundation
import HearthCore
import HearthProtocol
import Testing

/// Exact frames, so the layout documented for other-language clients cannot drift unnoticed.
@Suite struct GoldenBytesTests {
    @Test func hello() throws {
        let frame = MessageCodec.encode(.hello(minVersion: 1, maxVersion: 1), requestID: 7)
        #expect(
            frame == [
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
        #expect(
            frame == [
                0x01,  // version
                0x04,  // type: answer
                0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // request id
                // uuid, RFC 4122 order
                0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,
                0x00, 0x00, 0x00, 0x07,  // string length, u32 big-endian
                0x61, 0x70, 0x70, 0x72, 0x6F, 0x76, 0x65,  // "approve"
                0x00,  // message: absent
            ])
        #expect(try MessageCodec.decode(frame) == Envelope(requestID: 0x0102_0304_0506_0708, message: message))
    }

    @Test func knownHandles() throws {
        let message = Message.knownHandles([CommunicationHandle(value: "bob", kind: .custom)])
        let frame = MessageCodec.encode(message, requestID: 1)
        #expect(
            frame == [
                0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // header
                0x00, 0x00, 0x00, 0x01,  // array count
                0x03,  // handle kind: custom
                0x00, 0x00, 0x00, 0x03, 0x62, 0x6F, 0x62,  // "bob"
            ])
        #expect(try MessageCodec.decode(frame).message == message)
    }

    @Test func appWelcomeAndDate() throws {
        #expect(
            MessageCodec.encode(.appWelcome(memberID: nil, brokerConnected: true)) == [
                0x01, 0xA0, 0, 0, 0, 0, 0, 0, 0, 0,
                0x00,  // optional: absent
                0x01,  // bool: true
            ])
        // Dates are i64 milliseconds since 1970, big-endian; 1 ms before the epoch is all ones.
        let event = Event(
            memberID: "m", sequence: 1, createdAt: Date(timeIntervalSince1970: -0.001),
            body: .handlesChanged(added: [], removed: []))
        let frame = MessageCodec.encode(.event(event))
        #expect(
            Array(frame[10...]) == [
                0x00, 0x00, 0x00, 0x01, 0x6D,  // memberID "m"
                0, 0, 0, 0, 0, 0, 0, 1,  // sequence
                0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // createdAt = -1 ms
                0x03,  // kind: handlesChanged
                0, 0, 0, 0,  // added: none
                0, 0, 0, 0,  // removed: none
            ])
    }

    // MARK: Communication Limits, contacts, passcodes (0x07-0x0C, 0x87, 0x88) and the admin socket (0x50, 0xD0)

    static let emma: [UInt8] = [0x00, 0x00, 0x00, 0x04, 0x65, 0x6D, 0x6D, 0x61]  // string "emma"
    static let bob: [UInt8] = [0x03, 0x00, 0x00, 0x00, 0x03, 0x62, 0x6F, 0x62]  // handle: custom "bob"

    func expectFrame(
        _ message: Message, requestID: UInt64, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let frame = MessageCodec.encode(message, requestID: requestID)
        #expect(frame == bytes, sourceLocation: sourceLocation)
        #expect(
            try MessageCodec.decode(bytes) == Envelope(requestID: requestID, message: message),
            sourceLocation: sourceLocation)
    }

    @Test func setLimits() throws {
        let settings = CommunicationSettings(
            enabled: true, screenTime: .contactsAndGroups, downtime: .specificContacts,
            downtimeSchedule: .init(startMinute: 22 * 60, endMinute: 7 * 60), allowContactEditing: true)
        try expectFrame(
            .setLimits(childID: "emma", settings: settings), requestID: 0x10,
            [
                0x01, 0x07, 0, 0, 0, 0, 0, 0, 0, 0x10,  // header: setLimits
            ] + Self.emma + [
                0x01,  // enabled: true
                0x02,  // screenTime: contactsAndGroups
                0x04,  // downtime: specificContacts
                0x01, 0x05, 0x28, 0x01, 0xA4,  // downtimeSchedule present: 1320 (22:00) to 420 (07:00)
                0x01,  // allowContactEditing: true
            ])
    }

    @Test func getLimitsAndLimits() throws {
        try expectFrame(
            .getLimits(childID: "emma"), requestID: 0x11, [0x01, 0x08, 0, 0, 0, 0, 0, 0, 0, 0x11] + Self.emma)
        let off = CommunicationSettings(enabled: false, screenTime: .contactsOnly, downtime: .everyone)
        try expectFrame(
            .limits(
                childID: "emma", settings: off,
                contacts: [Contact(handle: CommunicationHandle(value: "bob", kind: .custom))]), requestID: 0x11,
            [
                0x01, 0x87, 0, 0, 0, 0, 0, 0, 0, 0x11,  // header: limits
            ] + Self.emma + [
                0x00, 0x01, 0x03,  // enabled: false, screenTime: contactsOnly, downtime: everyone
                0x00,  // no downtimeSchedule
                0x00,  // allowContactEditing: false
                0x00, 0x00, 0x00, 0x01,  // 1 contact
            ] + Self.bob + [
                0x00  // allowedDuringDowntime: false
            ])
    }

    @Test func editContacts() throws {
        let phone = Contact(handle: CommunicationHandle(value: "+1", kind: .phoneNumber), allowedDuringDowntime: true)
        try expectFrame(
            .editContacts(childID: "emma", add: [phone], remove: [CommunicationHandle(value: "bob", kind: .custom)]),
            requestID: 0x12,
            [
                0x01, 0x09, 0, 0, 0, 0, 0, 0, 0, 0x12,  // header: editContacts
            ] + Self.emma + [
                0x00, 0x00, 0x00, 0x01,  // add: 1 contact
                0x01, 0x00, 0x00, 0x00, 0x02, 0x2B, 0x31,  // handle: phoneNumber "+1"
                0x01,  // allowedDuringDowntime: true
                0x00, 0x00, 0x00, 0x01,  // remove: 1 handle
            ] + Self.bob)
    }

    @Test func revokeApprovalAndHandlesRevoked() throws {
        let bob = CommunicationHandle(value: "bob", kind: .custom)
        try expectFrame(
            .revokeApproval(childID: "emma", handles: [bob]), requestID: 0x13,
            [
                0x01, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0x13,
            ] + Self.emma + [0x00, 0x00, 0x00, 0x01] + Self.bob)
        try expectFrame(
            .handlesRevoked([bob]), requestID: 0x13,
            [0x01, 0x88, 0, 0, 0, 0, 0, 0, 0, 0x13, 0x00, 0x00, 0x00, 0x01] + Self.bob)
    }

    @Test func passcodes() throws {
        let passcode: [UInt8] = [0x00, 0x00, 0x00, 0x04, 0x31, 0x32, 0x33, 0x34]  // string "1234"
        try expectFrame(
            .setPasscode(childID: "emma", passcode: "1234"), requestID: 0x14,
            [
                0x01, 0x0B, 0, 0, 0, 0, 0, 0, 0, 0x14,
            ] + Self.emma + passcode)
        try expectFrame(
            .setPasscode(childID: "emma", passcode: ""), requestID: 0x14,
            [
                0x01, 0x0B, 0, 0, 0, 0, 0, 0, 0, 0x14,
            ] + Self.emma + [0x00, 0x00, 0x00, 0x00])  // empty: clears the passcode
        try expectFrame(
            .approveInPerson(questionID: Fixtures.id1, passcode: "1234"), requestID: 0x15,
            [
                0x01, 0x0C, 0, 0, 0, 0, 0, 0, 0, 0x15,
                // question id
                0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,
            ] + passcode)
        try expectFrame(
            .declineInPerson(questionID: Fixtures.id1, passcode: "1234"), requestID: 0x15,
            [
                0x01, 0x10, 0, 0, 0, 0, 0, 0, 0, 0x15,
                // question id, then the passcode as for approveInPerson (version 4)
                0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,
            ] + passcode)
    }

    @Test func newErrorCodes() throws {
        let codes: [(ErrorCode, UInt8)] = [(.invalidRequest, 15), (.lockedOut, 16), (.wrongPasscode, 17)]
        for (code, raw) in codes {
            try expectFrame(
                .error(ErrorReply(code, "no")), requestID: 0x16,
                [
                    0x01, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0x16,
                    0x00, raw,  // code, u16
                    0x00, 0x00, 0x00, 0x02, 0x6E, 0x6F,  // "no"
                ])
        }
    }

    @Test func adminRequestAndResult() throws {
        let json = #"{"command":"show"}"#
        try expectFrame(
            .adminRequest(json), requestID: 0x17,
            [0x01, 0x50, 0, 0, 0, 0, 0, 0, 0, 0x17, 0x00, 0x00, 0x00, 0x12] + Array(json.utf8))
        let result = #"{"summary":"ok"}"#
        try expectFrame(
            .adminResult(result), requestID: 0x17,
            [0x01, 0xD0, 0, 0, 0, 0, 0, 0, 0, 0x17, 0x00, 0x00, 0x00, 0x10] + Array(result.utf8))
    }
}
