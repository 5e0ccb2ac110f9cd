import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Frames a hostile or broken device might send, and batches that mix them with good commands.
@Suite("BrokerEngine hostile frames and batches")
struct BrokerEngineFrameTests {
    static let askFrame = MessageCodec.encode(
        .ask(appBundleID: "com.example.chat", question: question(["h1"])), requestID: 77)

    /// Header, u32-length bundle id, question id: then the question's topic tag.
    static let topicOffset = Wire.headerSize + 4 + "com.example.chat".utf8.count + 16

    static func patched(_ frame: [UInt8], byte index: Int, set value: UInt8) -> [UInt8] {
        var frame = frame
        frame[index] = value
        return frame
    }

    static let hostile: [(String, [UInt8], ErrorCode)] = [
        ("empty", [], .malformedMessage),
        ("one byte", [1], .malformedMessage),
        ("header cut short", Array(askFrame.prefix(6)), .malformedMessage),
        ("header only", Array(askFrame.prefix(Wire.headerSize)), .malformedMessage),
        ("ask cut in the middle", Array(askFrame.prefix(askFrame.count / 2)), .malformedMessage),
        ("ask missing its last byte", Array(askFrame.dropLast()), .malformedMessage),
        ("trailing bytes", askFrame + [0], .malformedMessage),
        ("version 0", patched(askFrame, byte: 0, set: 0), .unsupportedVersion),
        ("version 2", patched(askFrame, byte: 0, set: 2), .unsupportedVersion),
        ("version 255", patched(askFrame, byte: 0, set: 255), .unsupportedVersion),
        ("unknown type 0x7e", patched(askFrame, byte: 1, set: 0x7E), .unknownMessageType),
        ("unknown type 0x00", patched(askFrame, byte: 1, set: 0x00), .unknownMessageType),
        ("a reply type sent as a command", MessageCodec.encode(.pong(head: 3), requestID: 77), .unknownMessageType),
        ("an event sent as a command", MessageCodec.encode(.heartbeat(head: 3), requestID: 77), .unknownMessageType),
        (
            "an event batch sent as a command",
            MessageCodec.encode(
                .eventBatch([Event(memberID: "e1", sequence: 1, createdAt: Date(), body: .omitted(kind: 0, reason: ""))]
                ),
                requestID: 77), .unknownMessageType
        ),
        (
            "an app message sent to the broker",
            MessageCodec.encode(.appHello(bundleID: "com.example.chat"), requestID: 77), .unknownMessageType
        ),
        ("garbage body", [1, 0x03, 0, 0, 0, 0, 0, 0, 0, 77] + [UInt8](repeating: 0xFF, count: 40), .malformedMessage),
        ("garbage answer body", [1, 0x04, 0, 0, 0, 0, 0, 0, 0, 77] + Array("not a uuid".utf8), .malformedMessage),
        ("unknown topic", patched(askFrame, byte: topicOffset, set: 9), .malformedMessage),
        ("text", Array("GET / HTTP/1.1\r\n\r\n".utf8), .unsupportedVersion),
        ("too long", [1, 0x06] + [UInt8](repeating: 0, count: Wire.maxFrameSize), .malformedMessage),
    ]

    @Test(arguments: hostile)
    func aHostileFrameGetsATypedErrorAndStoresNothing(_ label: String, _ frame: [UInt8], _ code: ErrorCode) async throws
    {
        try await BrokerHarness.with { broker in
            for device in ["e1", "a1"] {
                let outcome = try await broker.sendFrame(frame, device: device)
                #expect(outcome.reply.errorCode == code, "\(label): \(outcome.reply)")
                #expect(outcome.events.isEmpty)
            }
            #expect(try await broker.questionCount() == 0)
            #expect(try await broker.storage.storedHeads().isEmpty)
            #expect(broker.sequences.snapshot().isEmpty)
        }
    }

    @Test func theUnknownTopicFrameReallyIsTheAskWithItsTopicByteChanged() throws {
        // Guards the "unknown topic" case above: the byte it changes is the topic tag (1 = communication).
        #expect(
            Array(Self.askFrame[Wire.headerSize..<(Wire.headerSize + 4)]) == [0, 0, 0, 16], "the bundle id's u32 length"
        )
        #expect(Self.askFrame[Self.topicOffset] == 1)
    }

    @Test(arguments: StorageBackend.all)
    func anErrorReplyEchoesTheRequestIDWhenTheHeaderIsIntact(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let truncated = try await broker.sendFrame(Array(Self.askFrame.dropLast(3)), device: "e1")
            #expect(truncated.requestID == 77)
            let short = try await broker.sendFrame([1, 3, 0], device: "e1")
            #expect(short.requestID == 0)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aBadFrameInABatchDoesNotUndoItsNeighbours(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let q1 = question(["h1"])
            let q2 = question(["h2"])
            let q3 = question(["h3"])
            func ask(_ q: Question, _ id: UInt64) -> [UInt8] {
                MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: q), requestID: id)
            }

            let (replies, events) = try await broker.batch([
                ("e1", ask(q1, 1)),
                ("e1", Array(ask(q2, 2).dropLast())),
                ("e1", ask(q2, 3)),
                ("e1", Self.patched(ask(q3, 4), byte: 0, set: 9)),
                ("a1", MessageCodec.encode(.answer(questionID: q1.id, choiceID: "approve"), requestID: 5)),
                ("e1", [1, 0x02, 0xAD]),
                ("e1", MessageCodec.encode(.knownHandles([handle("h1"), handle("h2")]), requestID: 6)),
                ("e1", Self.patched(ask(q3, 7), byte: 1, set: 0x55)),
                ("e1", MessageCodec.encode(.sync(after: 0, limit: 100), requestID: 8)),
            ])
            #expect(replies.count == 9)
            #expect(replies[0].accepted?.asked.question == pendingForm(of: q1, askedAt: broker.clock.now))
            #expect(replies[1].errorCode == .malformedMessage)
            #expect(replies[2].accepted?.asked.question == pendingForm(of: q2, askedAt: broker.clock.now))
            #expect(replies[3].errorCode == .unsupportedVersion)
            #expect(replies[4].answerResolution?.choice == .approve)
            #expect(replies[5].errorCode == .malformedMessage)
            // Later commands in the batch see what earlier ones wrote.
            #expect(replies[6] == .knownHandlesResult([handle("h1")]))
            #expect(replies[7].errorCode == .unknownMessageType)
            let synced = try #require(replies[8].eventsReply)
            #expect(synced.head == 4)
            #expect(synced.events == events.of("emma"))

            #expect(events.of("emma").map(\.sequence) == [1, 2, 3, 4])
            #expect(events.of("alice").map(\.sequence) == [1, 2, 3])
            #expect(try await broker.storage.storedHeads() == ["emma": 4, "alice": 3, "bob": 3])
            #expect(try await broker.questionCount() == 2)
            #expect(try await broker.storedQuestion(q3.id) == nil)
            #expect(try await broker.logs()["emma"]?.events == events.of("emma"))
        }
    }

    @Test func aCommandThatFailsHalfwayIsRolledBackAndItsNeighboursCommit() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        // Emma's log already has event 1 ...
        do {
            let broker = try await BrokerHarness(temp: temp)
            _ = try await broker.ask(question(["h0"]))
        }
        // ... but this engine's sequence book says her head is 0, so her ask stores its question and then fails on
        // its first event: the savepoint must take the question back and leave the other commands alone.
        let broker = try await BrokerHarness(temp: temp, sequences: SequenceBook())
        let failing = question(["h1"])
        let nora1 = question(["n1"])
        let nora2 = question(["n2"])
        func ask(_ q: Question, _ id: UInt64) -> [UInt8] {
            MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: q), requestID: id)
        }
        let (replies, events) = try await broker.batch([
            ("n1", ask(nora1, 1)),
            ("e1", ask(failing, 2)),
            ("n1", ask(nora2, 3)),
        ])
        #expect(replies[0].accepted?.resolution?.reason == .defaultNoFamily)
        #expect(replies[1].errorCode == .internalError, "\(replies[1])")
        #expect(replies[2].accepted?.resolution?.reason == .defaultNoFamily)
        #expect(events.map(\.memberID) == ["nora", "nora"])
        #expect(events.map(\.sequence) == [1, 2])
        #expect(try await broker.storedQuestion(failing.id) == nil)
        #expect(try await broker.storedQuestion(nora1.id) != nil)
        #expect(try await broker.storedQuestion(nora2.id) != nil)
        #expect(try await broker.storage.storedHeads() == ["emma": 1, "alice": 1, "bob": 1, "nora": 2])
        #expect(broker.sequences.snapshot() == ["nora": 2])
    }
}
