import Foundation
import HearthCore
import HearthProtocol
import Testing

/// Exact frames of parent-device's notification messages, as docs/PROTOCOL.md §5.13 and §6.5 lay them out.
@Suite struct GoldenBytesParentTests {
    private func check(
        _ message: Message, type: UInt8, body: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let frame = MessageCodec.encode(message, requestID: 2)
        #expect(frame == [0x01, type, 0, 0, 0, 0, 0, 0, 0, 0x02] + body, sourceLocation: sourceLocation)
        #expect(
            try MessageCodec.decode(frame) == Envelope(requestID: 2, message: message), sourceLocation: sourceLocation)
    }

    private let uuid: [UInt8] = [
        0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,
    ]

    @Test func watchAndWatching() throws {
        try check(.parentWatch(after: nil), type: 0x31, body: [0x00])
        try check(.parentWatch(after: 7), type: 0x31, body: [0x01, 0, 0, 0, 0, 0, 0, 0, 7])
        try check(.parentWatching(head: 0x0102), type: 0xB1, body: [0, 0, 0, 0, 0, 0, 0x01, 0x02])
    }

    @Test func notification() throws {
        let answered = ParentNotification(
            id: 3, kind: .questionAnswered, createdAt: Date(timeIntervalSince1970: 1), childMemberID: "k",
            questionID: Fixtures.id1, appBundleID: "a", answeredBy: "m", choiceID: "ok", text: "hi")
        try check(
            .parentNotification(answered), type: 0xB2,
            body: [
                0, 0, 0, 0, 0, 0, 0, 3,  // id
                0x02,  // kind: questionAnswered
                0, 0, 0, 0, 0, 0, 0x03, 0xE8,  // createdAt: 1000 ms
                0, 0, 0, 1, 0x6B,  // childMemberID "k"
                0x01,
            ] + uuid + [  // questionID: present
                0x01, 0, 0, 0, 1, 0x61,  // appBundleID: present, "a"
                0x01, 0, 0, 0, 1, 0x6D,  // answeredBy: present, "m"
                0x01, 0, 0, 0, 2, 0x6F, 0x6B,  // choiceID: present, "ok"
                0, 0, 0, 2, 0x68, 0x69,  // text "hi"
            ])
        var pending = answered
        pending.kind = .questionPending
        pending.questionID = nil
        pending.appBundleID = nil
        pending.answeredBy = nil
        pending.choiceID = nil
        try check(
            .parentNotification(pending), type: 0xB2,
            body: [
                0, 0, 0, 0, 0, 0, 0, 3, 0x01, 0, 0, 0, 0, 0, 0, 0x03, 0xE8, 0, 0, 0, 1, 0x6B,
                0x00, 0x00, 0x00, 0x00,  // no question, app, answeredBy, choice
                0, 0, 0, 2, 0x68, 0x69,
            ])
    }

    @Test func badNotificationsAreNamed() throws {
        var frame = MessageCodec.encode(
            .parentNotification(
                ParentNotification(
                    id: 1, kind: .questionPending, createdAt: Date(timeIntervalSince1970: 0), childMemberID: "k",
                    questionID: nil, appBundleID: nil, answeredBy: nil, choiceID: nil, text: "")))
        frame[18] = 9  // kind
        #expect(throws: WireError.unknownEnumValue(field: "notification.kind", value: 9)) {
            try MessageCodec.decode(frame)
        }
        frame[18] = 1
        frame[frame.count - 8] = 0x02  // the first optional's presence byte
        #expect(throws: WireError.unknownEnumValue(field: "notification.questionID", value: 2)) {
            try MessageCodec.decode(frame)
        }
        let long = MessageCodec.encode(
            .parentNotification(
                ParentNotification(
                    id: 1, kind: .questionPending, createdAt: Date(timeIntervalSince1970: 0), childMemberID: "k",
                    questionID: nil, appBundleID: nil, answeredBy: nil, choiceID: nil,
                    text: String(repeating: "x", count: Wire.maxNotificationTextBytes + 1))))
        #expect(throws: WireError.tooLong(field: "notification.text", length: 2049, max: 2048)) {
            try MessageCodec.decode(long)
        }
    }
}
