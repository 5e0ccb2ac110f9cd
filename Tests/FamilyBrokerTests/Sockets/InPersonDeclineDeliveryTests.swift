import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// A question declined in person (reason 9, history kind 12, protocol 4) reaches the devices that read it as it is,
/// and an older device as a parent's answer, without the history entry it cannot read.
@Suite struct InPersonDeclineDeliveryTests {
    static let asked = AskedQuestion(
        question: question(["newfriend"]), childMemberID: "emma", appBundleID: "com.example.chat",
        askingDeviceID: "emma-tablet", askedAt: Date(timeIntervalSince1970: 1_800_000_000))

    static var declined: Resolution {
        let denial = asked.question.choices.first { $0.answer == .denial }!
        return Resolution(
            questionID: asked.question.id, choice: denial, reason: .declinedInPerson, answeredBy: nil,
            resolvedAt: Date(timeIntervalSince1970: 1_800_000_060))
    }

    static func resolved(_ member: MemberID) -> Event {
        Event(
            memberID: member, sequence: 1, createdAt: declined.resolvedAt,
            body: .questionResolved(asked, declined))
    }

    static func reason(in frame: [UInt8]) throws -> Resolution.Reason? {
        switch try MessageCodec.decode(frame).message {
        case .event(let event):
            guard case .questionResolved(_, let resolution) = event.body else { return nil }
            return resolution.reason
        case .answerAccepted(let resolution): return resolution.reason
        default: return nil
        }
    }

    @Test func aMemberWithADeviceBelowFourReadsAParentsAnswerOnItsTopic() throws {
        let events = [Self.resolved("alice"), Self.resolved("bob")]
        #expect(events.allSatisfy { $0.peerVersion == Wire.inPersonDeclineVersion })
        let frames = events.map { $0.publicationFrame().frame }
        var versionsAsked: [UInt8] = []
        let published = BrokerFrames.forReaders(events: events, frames: frames) { version, members in
            versionsAsked.append(version)
            return members.intersection(["bob"])
        }
        #expect(versionsAsked == [Wire.inPersonDeclineVersion], "asked once, for version 4")
        #expect(try Self.reason(in: published[0]) == .parentAnswered, "alice has a device below version 4")
        #expect(published[1] == frames[1], "bob's devices all read version 4: the frame as stored")
        #expect(try Self.reason(in: published[1]) == .declinedInPerson)
    }

    @Test func repliesAndSyncsAreCutToTheirPeersVersion() throws {
        let accepted = CommandOutcome.success(.answerAccepted(Self.declined))
        #expect(try Self.reason(in: BrokerFrames.reply(accepted, requestID: 7, peerVersion: 3)) == .parentAnswered)
        #expect(try Self.reason(in: BrokerFrames.reply(accepted, requestID: 7, peerVersion: 4)) == .declinedInPerson)
        let entry = try #require(HistoryEntry(asked: Self.asked, resolution: Self.declined, deviceID: "emma-tablet"))
        #expect(entry.kind == .declinedInPerson && entry.choice?.answer == .denial)
        let page = CommandOutcome.success(.historyPage(childID: "emma", [entry], next: nil))
        func kinds(_ version: UInt8) throws -> [HistoryEntry.Kind] {
            guard
                case .historyPage(_, let entries, _) = try MessageCodec.decode(
                    BrokerFrames.reply(page, requestID: 7, peerVersion: version)
                ).message
            else { return [] }
            return entries.map(\.kind)
        }
        #expect(try kinds(3).isEmpty, "a device below version 4 would refuse kind 12, and with it the page")
        #expect(try kinds(4) == [.declinedInPerson])
    }
}
