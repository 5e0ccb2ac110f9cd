import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// How one commit's events leave: a member's consecutive events in one `eventBatch` frame, within a frame's limits,
/// and one `event` frame each for members with a device that did not negotiate version 2.
struct BrokerFramesPublicationsTests {
    static let at = Date(timeIntervalSince1970: 1000)

    static func event(_ member: MemberID, _ sequence: UInt64, avatarBytes: Int = 0) -> Event {
        guard avatarBytes > 0 else {
            return Event(
                memberID: member, sequence: sequence, createdAt: at, body: .handlesChanged(added: [], removed: []))
        }
        var topic = CommunicationTopic(personInformation: [
            PersonInformation(
                handle: CommunicationHandle(value: "friend", kind: .custom),
                avatarImage: [UInt8](repeating: 7, count: avatarBytes))
        ])
        topic.actions = [.message]
        let asked = AskedQuestion(
            question: Question(topic: .communication(topic)), childMemberID: member, appBundleID: "com.example.chat",
            askingDeviceID: "d", askedAt: at)
        return Event(memberID: member, sequence: sequence, createdAt: at, body: .questionPending(asked))
    }

    /// What the publications say, decoded: (member, events of each frame).
    static func published(_ events: [Event], singles: Set<MemberID> = []) throws -> [(MemberID, [Event], Bool)] {
        let frames = events.map { $0.publicationFrame().frame }
        return try BrokerFrames.publications(events: events, frames: frames, singles: singles).map { publication in
            #expect(publication.frame.count <= Wire.maxFrameSize)
            switch try MessageCodec.decode(publication.frame).message {
            case .event(let event): return (publication.member, [event], false)
            case .eventBatch(let batch): return (publication.member, batch, true)
            case let other: throw ErrorReply(.internalError, "published \(other)")
            }
        }
    }

    @Test func eachMembersEventsOfACommitShareAFrame() throws {
        // An ask's and an answer's events in one commit, as the engine appends them: child first, then parents.
        let events = [
            Self.event("emma", 1), Self.event("alice", 1), Self.event("emma", 2), Self.event("emma", 3),
            Self.event("alice", 2), Self.event("tim", 9),
        ]
        let published = try Self.published(events)
        #expect(published.map(\.0) == ["emma", "alice", "tim"])
        #expect(published.map { $0.1.map(\.sequence) } == [[1, 2, 3], [1, 2], [9]])
        #expect(published.map(\.2) == [true, true, false], "a member's only event goes as an event frame")
        for (member, batch, _) in published { #expect(batch.allSatisfy { $0.memberID == member }) }
    }

    @Test func aMemberWithAnOlderDeviceGetsOneFramePerEvent() throws {
        let events = [Self.event("emma", 1), Self.event("alice", 1), Self.event("emma", 2), Self.event("alice", 2)]
        let frames = events.map { $0.publicationFrame().frame }
        let publications = BrokerFrames.publications(events: events, frames: frames, singles: ["alice"])
        #expect(publications.map(\.member) == ["emma", "alice", "alice"])
        // The older device's frames are the events' own, byte for byte.
        #expect(publications.dropFirst().map(\.frame) == [frames[1], frames[3]])
        #expect(try Self.published(events, singles: ["alice"]).map(\.2) == [true, false, false])
    }

    @Test func aRunStopsAtAGapAtTheEventLimitAndAtTheFrameLimit() throws {
        // Never a batch a device would refuse: a gap starts a new frame.
        #expect(try Self.published([Self.event("emma", 1), Self.event("emma", 3)]).map { $0.1.count } == [1, 1])
        let many = (1...UInt64(Wire.maxEventsPerBatch + 5)).map { Self.event("emma", $0) }
        let counted = try Self.published(many)
        #expect(counted.map { $0.1.count } == [Wire.maxEventsPerBatch, 5])
        #expect(counted.flatMap(\.1) == many)
        // Six events of ~250 KB each: four fit in a frame of 1 MiB.
        let large = (1...6).map { Self.event("emma", UInt64($0), avatarBytes: 250_000) }
        let split = try Self.published(large)
        #expect(split.map { $0.1.count } == [4, 2])
        #expect(split.flatMap(\.1) == large)
    }
}
