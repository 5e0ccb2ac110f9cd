import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// How an age was established travels in pushed events to the devices that read it (protocol 3), and nowhere else:
/// a topic reaches all of a member's devices, so one older device keeps its member's frames at who declared.
@Suite struct AssuranceDeliveryTests {
    static let checked = DeclaredRange(lowerBound: 18, upperBound: nil, declaration: .governmentIDChecked)

    static func event(_ member: MemberID, sequence: UInt64, _ range: DeclaredRange = checked) -> Event {
        Event(
            memberID: member, sequence: sequence, createdAt: Date(timeIntervalSince1970: 1_800_000_000),
            body: .ageRange(.answerChanged(app: "com.example.landmarks", .sharing(range))))
    }

    static func declaration(in frame: [UInt8]) throws -> AgeDeclaration? {
        guard case .event(let event) = try MessageCodec.decode(frame).message,
            case .ageRange(.answerChanged(_, .sharing(let range))) = event.body
        else { return nil }
        return range.declaration
    }

    @Test func aMemberWithAnOlderDeviceGetsWhoDeclaredOnItsTopic() throws {
        let events = [Self.event("ben", sequence: 1), Self.event("ana", sequence: 1)]
        let frames = events.map { $0.publicationFrame().frame }
        let published = BrokerFrames.forReaders(events: events, frames: frames) { $1.intersection(["ana"]) }
        #expect(try Self.declaration(in: published[0]) == .selfDeclared, "ben has a device below version 3")
        #expect(published[1] == frames[1], "ana's devices all read version 3: the frame as stored")
        #expect(try Self.declaration(in: published[1]) == .governmentIDChecked)
    }

    @Test func framesWithoutAnAssuranceAreNotReencoded() {
        let derived = DeclaredRange(lowerBound: 18, upperBound: nil, declaration: .selfDeclared)
        let events = [Self.event("ben", sequence: 1, derived)]
        let frames = events.map { $0.publicationFrame().frame }
        var asked = 0
        let published = BrokerFrames.forReaders(events: events, frames: frames) { _, _ in
            asked += 1
            return []
        }
        #expect(published == frames)
        #expect(asked == 0, "no directory scan when no event holds an assurance")
    }

    @Test func aSyncReplyIsCutToItsPeersVersion() throws {
        let reply = CommandOutcome.success(.events(head: 1, [Self.event("ben", sequence: 1)]))
        func declaration(_ version: UInt8) throws -> AgeDeclaration? {
            let frame = BrokerFrames.reply(reply, requestID: 7, peerVersion: version)
            guard case .events(_, let events) = try MessageCodec.decode(frame).message,
                case .ageRange(.answerChanged(_, .sharing(let range))) = events.first?.body
            else { return nil }
            return range.declaration
        }
        #expect(try declaration(2) == .selfDeclared)
        #expect(try declaration(3) == .governmentIDChecked)
    }

    @Test func aMemberReadsAssuranceOnlyOnceEachDeviceNegotiatedThree() throws {
        let versions = DeviceVersions()
        versions.record(3, for: "b1")
        #expect(!versions.all(["b1", "b2"], read: 3), "b2 has said no hello since the start")
        versions.record(2, for: "b2")
        #expect(!versions.all(["b1", "b2"], read: 3))
        versions.record(3, for: "b2")
        #expect(versions.all(["b1", "b2"], read: 3))
        #expect(!versions.all([], read: 3), "a member without devices has nobody to read it")
        let directory = try TestFamily.directory()
        let emma = directory.devices.values.filter { $0.memberID == "emma" }.map(\.id)
        for device in emma { versions.record(3, for: device) }
        #expect(versions.readers(of: 3, among: ["emma", "alice"], in: directory) == ["emma"])
    }

    /// An acknowledged update goes to a parent's log (history kind 11, version 3): a parent device below version 3
    /// gets `omitted` at its position instead, in a sync and on the topic of a member with such a device.
    @Test func anAcknowledgmentStandsAsOmittedForAnOlderPeer() throws {
        let entry = HistoryEntry.updateAcknowledged(
            child: "emma", at: Date(timeIntervalSince1970: 1_800_000_000), device: "e1", app: "com.example.chat",
            description: "Adds video calls.")
        let event = Event(
            memberID: "alice", sequence: 4, createdAt: entry.recordedAt, body: .historyRecorded(entry))
        #expect(event.peerVersion == 3 && event.forPeer(version: 3) == event)
        guard case .omitted(let kind, let reason) = event.forPeer(version: 2).body else {
            Issue.record("a version 2 peer got the entry")
            return
        }
        #expect(kind == 6 && reason == "history entry kind 11 needs protocol 3")
        let frames = [event.publicationFrame().frame]
        let published = BrokerFrames.forReaders(events: [event], frames: frames) { _, _ in [] }
        guard case .event(let sent) = try MessageCodec.decode(published[0]).message else {
            Issue.record("not an event frame")
            return
        }
        #expect(sent.sequence == 4 && sent.body == .omitted(kind: 6, reason: reason))
    }
}
