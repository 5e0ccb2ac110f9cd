import Foundation
import HearthCore
import HearthProtocol
import Testing

/// A child's history (docs/PROTOCOL.md §5.14, §6.1 0x0F, §6.2 0x8B, event kind 6), in exact bytes.
@Suite struct GoldenBytesHistoryTests {
    static let emma: [UInt8] = [0, 0, 0, 4, 0x65, 0x6D, 0x6D, 0x61]

    /// Entry 3: emma's limits changed by "m" from device "d" at 1000 ms, summary "x".
    static let entry = HistoryEntry(
        id: 3, childMemberID: "emma", recordedAt: Date(timeIntervalSince1970: 1), kind: .limitsChanged, actor: "m",
        deviceID: "d", summary: "x")

    static let entryBytes: [UInt8] =
        [0, 0, 0, 0, 0, 0, 0, 3] + emma  // id 3, childMemberID
        + [0, 0, 0, 0, 0, 0, 0x03, 0xE8, 0x06]  // recordedAt 1000 ms, kind limitsChanged
        + [0x01, 0, 0, 0, 1, 0x6D, 0x01, 0, 0, 0, 1, 0x64]  // actor "m", deviceID "d"
        + [0x00, 0x00, 0x00, 0x00]  // no questionID, appBundleID, choice, message
        + [0, 0, 0, 0] + [0, 0, 0, 1, 0x78]  // no handles, summary "x"

    /// Kind 11 (version 3): emma acknowledged an update of app "a" from device "d"; the description is the message.
    @Test func anAcknowledgedUpdate() throws {
        let entry = HistoryEntry.updateAcknowledged(
            child: "emma", at: Date(timeIntervalSince1970: 1), device: "d", app: "a", description: "Hi")
        #expect(entry.summary == "emma acknowledged a significant update of a — \"Hi\"")
        var w = WireWriter()
        w.historyEntry(entry)
        #expect(
            w.bytes
                == [0, 0, 0, 0, 0, 0, 0, 0] + Self.emma  // id 0 (not stored yet), childMemberID
                + [0, 0, 0, 0, 0, 0, 0x03, 0xE8, 0x0B]  // recordedAt 1000 ms, kind updateAcknowledged
                + [0x01] + Self.emma + [0x01, 0, 0, 0, 1, 0x64]  // actor "emma", deviceID "d"
                + [0x00, 0x01, 0, 0, 0, 1, 0x61, 0x00]  // no questionID; appBundleID "a"; no choice
                + [0x01, 0, 0, 0, 2, 0x48, 0x69]  // message "Hi"
                + [0, 0, 0, 0] + [0, 0, 0, 0x34] + Array(entry.summary.utf8))  // no handles, summary (52 bytes)
        var r = WireReader(w.bytes)
        #expect(try r.historyEntry() == entry)
        #expect(entry.kind.protocolVersion == 3 && !entry.kind.isSettingsChange)
    }

    @Test func historyRequest() throws {
        let request: Message = .history(HistoryQuery(childID: "emma", limit: 50))
        let frame = MessageCodec.encode(request, requestID: 6)
        #expect(
            frame
                == [0x01, 0x0F, 0, 0, 0, 0, 0, 0, 0, 6] + Self.emma
                + [0, 0, 0, 0, 0, 0, 0, 0]  // cursor 0: the first page
                + [0, 0, 0, 0x32, 0x00, 0x00])  // limit 50, oldest first, no since
        #expect(try MessageCodec.decode(frame).message == request)
        let newest: Message = .history(
            HistoryQuery(
                childID: "emma", cursor: 9, limit: 20, newestFirst: true, since: Date(timeIntervalSince1970: 1)))
        let newestFrame = MessageCodec.encode(newest, requestID: 6)
        #expect(
            newestFrame
                == [0x01, 0x0F, 0, 0, 0, 0, 0, 0, 0, 6] + Self.emma + [0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0x14, 0x01]
                + [0x01, 0, 0, 0, 0, 0, 0, 0x03, 0xE8])  // since 1000 ms
        #expect(try MessageCodec.decode(newestFrame).message == newest)
    }

    @Test func historyPage() throws {
        let reply: Message = .historyPage(childID: "emma", entries: [Self.entry], next: 3)
        let frame = MessageCodec.encode(reply, requestID: 6)
        #expect(
            frame
                == [0x01, 0x8B, 0, 0, 0, 0, 0, 0, 0, 6] + Self.emma + [0, 0, 0, 1] + Self.entryBytes
                + [0x01, 0, 0, 0, 0, 0, 0, 0, 3])  // next: 3
        #expect(try MessageCodec.decode(frame).message == reply)
        let last = MessageCodec.encode(.historyPage(childID: "emma", entries: [], next: nil), requestID: 6)
        #expect(last == [0x01, 0x8B, 0, 0, 0, 0, 0, 0, 0, 6] + Self.emma + [0, 0, 0, 0, 0x00])
    }

    @Test func historyRecordedEvent() throws {
        let event = Event(
            memberID: "m", sequence: 1, createdAt: Date(timeIntervalSince1970: 1), body: .historyRecorded(Self.entry))
        let frame = MessageCodec.encode(.event(event))
        #expect(
            frame
                == [0x01, 0x90, 0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 1, 0x6D]  // memberID "m"
                + [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x03, 0xE8, 0x06]  // sequence 1, 1000 ms, kind 6
                + Self.entryBytes)
        #expect(try MessageCodec.decode(frame).message == .event(event))
    }

    @Test func anAnsweredEntryCarriesTheQuestionTheChoiceAndTheMessage() throws {
        let id = UUID(uuidString: "123e4567-e89b-12d3-a456-426614174000")!
        let entry = HistoryEntry(
            id: 1, childMemberID: "emma", recordedAt: Date(timeIntervalSince1970: 1), kind: .answered, actor: "m",
            deviceID: nil, questionID: id, appBundleID: "a", choice: .decline, message: "no",
            handles: [CommunicationHandle(value: "bob", kind: .custom)], summary: "x")
        var w = WireWriter()
        w.historyEntry(entry)
        #expect(
            w.bytes
                == [0, 0, 0, 0, 0, 0, 0, 1] + Self.emma + [0, 0, 0, 0, 0, 0, 0x03, 0xE8, 0x01]
                + [0x01, 0, 0, 0, 1, 0x6D, 0x00]  // actor "m", no deviceID
                + [
                    0x01, 0x12, 0x3E, 0x45, 0x67, 0xE8, 0x9B, 0x12, 0xD3, 0xA4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40,
                    0x00,
                ]
                + [0x01, 0, 0, 0, 1, 0x61]  // appBundleID "a"
                + [0x01, 0, 0, 0, 7] + Array("decline".utf8) + [0, 0, 0, 7] + Array("Decline".utf8) + [0x02]
                + [0x01, 0, 0, 0, 2, 0x6E, 0x6F]  // message "no"
                + [0, 0, 0, 1, 0x03, 0, 0, 0, 3, 0x62, 0x6F, 0x62] + [0, 0, 0, 1, 0x78])
        var r = WireReader(w.bytes)
        #expect(try r.historyEntry() == entry)
    }

    @Test func badEntriesAreRefusedByField() {
        var kind = Array(Self.entryBytes)
        kind[24] = 13  // after id (8), childMemberID (8) and recordedAt (8): no kind 13
        #expect(throws: WireError.unknownEnumValue(field: "entry.kind", value: 13)) {
            var r = WireReader(kind)
            _ = try r.historyEntry()
        }
        var long = WireWriter()
        var entry = Self.entry
        entry.summary = String(repeating: "a", count: 2049)
        long.historyEntry(entry)
        #expect(throws: WireError.tooLong(field: "entry.summary", length: 2049, max: 2048)) {
            var r = WireReader(long.bytes)
            _ = try r.historyEntry()
        }
        var many = WireWriter()
        many.historyEntry(Self.entry)
        // 101 handles claimed where the entry says none: refused on the count, before reading one.
        var bytes = many.bytes
        bytes.replaceSubrange((bytes.count - 9)..<(bytes.count - 5), with: [0, 0, 0, 101])
        #expect(throws: WireError.tooLong(field: "entry.handles", length: 101, max: 100)) {
            var r = WireReader(bytes)
            _ = try r.historyEntry()
        }
        let cursor = MessageCodec.encode(.error(ErrorReply(.invalidCursor, "x")), requestID: 6)
        #expect(cursor == [0x01, 0xFF, 0, 0, 0, 0, 0, 0, 0, 6, 0x00, 0x1A, 0, 0, 0, 1, 0x78])
    }
}
