import Foundation
import HearthCore
import HearthProtocol
import Testing

/// `eventBatch` (0x92, negotiated version 2): its bytes, the broker's way of building it from stored events, and the
/// batches a peer must refuse (docs/PROTOCOL.md §6.3).
struct GoldenBytesEventBatchTests {
    static let at = Date(timeIntervalSince1970: 1)
    static let bob = CommunicationHandle(value: "bob", kind: .custom)

    static func changed(_ member: MemberID, _ sequence: UInt64, added: [CommunicationHandle] = []) -> Event {
        Event(memberID: member, sequence: sequence, createdAt: at, body: .handlesChanged(added: added, removed: []))
    }

    /// The frame of an `eventBatch` whose events are written by `body` after a count of `count`.
    static func batch(count: UInt32, _ events: [Event]) -> [UInt8] {
        Fixtures.frame(type: 0x92, requestID: 0) { w in
            w.u32(count)
            for event in events { w.event(event) }
        }
    }

    @Test func twoEventsOfOneMember() throws {
        let events = [Self.changed("emma", 2), Self.changed("emma", 3, added: [Self.bob])]
        let frame = MessageCodec.encode(.eventBatch(events))
        let event: (UInt8) -> [UInt8] = { sequence in
            [0, 0, 0, 4, 0x65, 0x6D, 0x6D, 0x61]  // memberID "emma"
                + [0, 0, 0, 0, 0, 0, 0, sequence]  // sequence
                + [0, 0, 0, 0, 0, 0, 0x03, 0xE8]  // createdAt 1000 ms
                + [0x03]  // kind: handlesChanged
        }
        #expect(
            frame
                == [0x01, 0x92, 0, 0, 0, 0, 0, 0, 0, 0]  // header: version 1, eventBatch, request id 0
                + [0, 0, 0, 2]  // 2 events
                + event(2) + [0, 0, 0, 0] + [0, 0, 0, 0]  // added: none, removed: none
                + event(3) + [0, 0, 0, 1, 0x03, 0, 0, 0, 3, 0x62, 0x6F, 0x62] + [0, 0, 0, 0])  // added [custom "bob"]
        #expect(try MessageCodec.decode(frame) == Envelope(requestID: 0, message: .eventBatch(events)))
        // The broker builds it from the events' stored encodings, the bodies of their `event` frames.
        let bodies = events.map { MessageCodec.encode(.event($0))[Wire.headerSize...] }
        #expect(MessageCodec.eventBatchFrame(bodies: bodies) == frame)
        #expect(MessageCodec.eventBatchBytes(bodies.reduce(0) { $0 + $1.count }) == frame.count)
    }

    /// The broker encodes a body once for the child and each parent: the frame is the whole event's, byte for byte.
    @Test func anEventFrameFromABodyEncodedApartIsTheEventsFrame() {
        for event in Fixtures.events + [Self.changed("emma", 3, added: [Self.bob]), Self.changed("", 0)] {
            var body = WireWriter()
            body.eventBody(event.body)
            let frame = MessageCodec.eventFrame(
                member: event.memberID, sequence: event.sequence, createdAt: event.createdAt, encodedBody: body.bytes)
            #expect(frame == MessageCodec.encode(.event(event)))
            #expect(frame == MessageCodec.eventFrame(body: event.encoded()))
            #expect(MessageCodec.eventHeadBytes(member: event.memberID) + body.bytes.count == event.encoded().count)
        }
    }

    @Test func theHighestSequenceIsReadWithoutDecodingTheEvents() {
        let batch = MessageCodec.encode(.eventBatch([Self.changed("emma", 41), Self.changed("emma", 42)]))
        #expect(MessageCodec.peekHighestSequence(batch) == 42)
        #expect(MessageCodec.peekHighestSequence(MessageCodec.encode(.event(Self.changed("emma", 7)))) == 7)
        #expect(MessageCodec.peekHighestSequence(MessageCodec.encode(.heartbeat(head: 7))) == nil)
        #expect(MessageCodec.peekHighestSequence(Self.batch(count: 0, [])) == nil)
        #expect(MessageCodec.peekHighestSequence(Array(batch.prefix(20))) == nil)
        // A count that would carry the sequence past the largest number is no position at all.
        #expect(MessageCodec.peekHighestSequence(Self.batch(count: 2, [Self.changed("emma", .max)])) == nil)
    }

    @Test func aBatchBreakingItsRulesIsRefusedWhole() {
        func failure(_ frame: [UInt8]) -> WireError? {
            do {
                _ = try MessageCodec.decode(frame)
                return nil
            } catch { return error }
        }
        #expect(
            failure(Self.batch(count: 0, []))
                == .invalidValue(field: "eventBatch.events", reason: "must hold at least one event"))
        #expect(
            failure(Self.batch(count: 2, [Self.changed("emma", 1), Self.changed("alice", 2)]))
                == .invalidValue(field: "eventBatch.events[1].memberID", reason: "must be the first event's member"))
        #expect(
            failure(Self.batch(count: 2, [Self.changed("emma", 1), Self.changed("emma", 3)]))
                == .invalidValue(field: "eventBatch.events[1].sequence", reason: "must be 1 + 1"))
        #expect(
            failure(Self.batch(count: 2, [Self.changed("emma", 5), Self.changed("emma", 5)]))
                == .invalidValue(field: "eventBatch.events[1].sequence", reason: "must be 5 + 1"))
        #expect(
            failure(Self.batch(count: 2, [Self.changed("emma", .max), Self.changed("emma", 0)]))
                == .invalidValue(field: "eventBatch.events[1].sequence", reason: "must be \(UInt64.max) + 1"))
        let many = (1...1001).map { Self.changed("emma", UInt64($0)) }
        #expect(
            failure(Self.batch(count: 1001, many))
                == .tooLong(field: "eventBatch.events", length: 1001, max: Wire.maxEventsPerBatch))
        #expect(failure(Self.batch(count: 100, [Self.changed("emma", 1)])) == .truncated(field: "eventBatch.events"))
        #expect(failure(Self.batch(count: 2, [Self.changed("emma", 1)])) == .truncated(field: "event.memberID"))
        #expect(failure(Self.batch(count: 1, [Self.changed("emma", 1)]) + [0]) == .trailingBytes(count: 1))
        // Within the limits, a batch of the most events decodes.
        let most = Array(many.prefix(Wire.maxEventsPerBatch))
        #expect((try? MessageCodec.decode(Self.batch(count: 1000, most)))?.message == .eventBatch(most))
    }

    /// A device of version 4 (eventBatch, regulatory features, then declining in person) says so in `hello`; the
    /// header's byte stays 1.
    @Test func helloForVersionFour() throws {
        let frame = MessageCodec.encode(.hello(minVersion: 1, maxVersion: Wire.highestVersion), requestID: 7)
        #expect(frame == [0x01, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x07, 0x01, 0x04])
        let welcome = MessageCodec.encode(
            .welcome(version: 2, familyID: nil, memberID: "m", deviceID: "d", role: .child, head: 0), requestID: 7)
        #expect(Array(welcome.prefix(11)) == [0x01, 0x81, 0, 0, 0, 0, 0, 0, 0, 0x07, 0x02])
    }
}
