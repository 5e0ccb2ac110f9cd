import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// The broker refuses a question over its budget, and never lets one event stop a member's log.
@Suite("Question budget at the broker")
struct QuestionBudgetEngineTests {
    /// A question about four people whose encoding is exactly `bytes` long, its bulk in their avatar images.
    static func sized(_ bytes: Int) -> Question {
        var people = (0..<4).map { PersonInformation(handle: handle("pal\($0)"), avatarImage: []) }
        var missing = bytes - QuestionBudget.encodedSize(of: about(people))
        for index in people.indices {
            let size = min(missing, Wire.maxAvatarBytes)
            people[index].avatarImage = [UInt8](repeating: UInt8(index + 1), count: size)
            missing -= size
        }
        precondition(missing == 0)
        return about(people)
    }

    static func about(_ people: [PersonInformation], id: UUID = UUID()) -> Question {
        Question(id: id, topic: .communication(CommunicationTopic(personInformation: people, actions: [.message])))
    }

    /// `member`'s whole log, page by page, as a device syncs it.
    static func syncAll(_ member: MemberID, _ broker: BrokerHarness) async throws -> [Event] {
        var events: [Event] = []
        while true {
            let after = events.last?.sequence ?? 0
            let page = try #require(
                try await broker.send(.sync(after: after, limit: 1000), from: member).reply.eventsReply)
            events += page.events
            if page.events.isEmpty || events.last!.sequence >= page.head { return events }
        }
    }

    @Test(arguments: StorageBackend.all)
    func aQuestionAtItsBudgetIsAskedAnsweredAndSyncedWhole(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let asked = Self.sized(QuestionBudget.maxQuestionBytes)
            // Pending, it gets the family's lifetime: 8 bytes more, which the envelope's reserve holds.
            let kept = pendingForm(of: asked, askedAt: broker.clock.now)
            let frame = MessageCodec.encode(.ask(appBundleID: "com.example.chat", question: asked), requestID: 1)
            let (askReplies, askOutput) = await broker.intake.process([
                .init(routingID: [1], deviceID: "e1", frame: frame)
            ])
            let answerFrame = MessageCodec.encode(.answer(questionID: asked.id, choiceID: "approve"), requestID: 2)
            let (answerReplies, answerOutput) = await broker.intake.process([
                .init(routingID: [2], deviceID: "a1", frame: answerFrame)
            ])
            for (replies, output) in [(askReplies, askOutput), (answerReplies, answerOutput)] {
                for frame in replies.map(\.frame) + output.eventFrames {
                    #expect(frame.count <= Wire.maxFrameSize)
                }
            }
            #expect(try MessageCodec.decode(askReplies[0].frame).message.accepted?.asked.question == kept)
            #expect(answerOutput.events.count == 4, "resolved to emma and both parents, and emma's new handles")

            // Two such events do not fit in one reply together: a page each, nothing lost.
            let emma = try await Self.syncAll("emma", broker)
            #expect(emma.map(\.sequence) == [1, 2, 3])
            #expect(emma[1].body.resolved?.asked.question == kept, "the avatars are all there")
            let alice = try await Self.syncAll("alice", broker)
            #expect(alice.map(\.sequence) == [1, 2])
            #expect(alice[1].body.resolved?.asked.question == kept)
        }
    }

    @Test(arguments: StorageBackend.all)
    func aQuestionOverItsBudgetIsRefusedAndChangesNothing(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            let before = try await broker.fingerprint()
            let outcome = try await broker.ask(Self.sized(QuestionBudget.maxQuestionBytes + 1))
            #expect(outcome.reply.errorCode == .questionTooLarge)
            let text = outcome.reply.errorReply?.message ?? ""
            #expect(text.contains("over its budget of 1044480 bytes"), "\(text)")
            #expect(text.contains("topic.personInformation[0].avatarImage"), "\(text)")
            #expect(outcome.events.isEmpty)
            #expect(try await broker.fingerprint() == before)
        }
    }

    @Test func aStoredEventThatCannotBeDeliveredNeverBlocksTheLog() async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        do {
            let broker = try await BrokerHarness(temp: temp)
            _ = try await broker.ask(question(["first"]))
            // As an older broker could have left them: an event too long for any frame, and a damaged row.
            let big = Self.sized(Wire.maxFrameSize)
            let asked = AskedQuestion(
                question: big, childMemberID: "emma", appBundleID: "a", askingDeviceID: "e1", askedAt: Date())
            var writer = WireWriter()
            writer.event(Event(memberID: "emma", sequence: 2, createdAt: Date(), body: .questionPending(asked)))
            let tooLong = Data(writer.bytes)
            #expect(tooLong.count > Wire.maxEventBytes)
            try await broker.store.pool.write { db in
                for (sequence, body) in [(2, tooLong), (3, Data([1, 2, 3]))] {
                    try db.execute(
                        sql: "INSERT INTO event_log (member_id, seq, body) VALUES ('emma', ?, ?)",
                        arguments: [sequence, body])
                }
            }
        }
        let broker = try await BrokerHarness(temp: temp)
        _ = try await broker.ask(question(["after"]))
        let log = try #require(try await broker.send(.sync(after: 0, limit: 1000), from: "emma").reply.eventsReply)
        #expect(log.head == 4)
        #expect(log.events.map(\.sequence) == [1, 2, 3, 4])
        let trimmed = try #require(log.events[1].body.pendingQuestion)
        #expect(trimmed.question.handles == Self.sized(Wire.maxFrameSize).handles)
        #expect(trimmed.question.handles.count == 4)
        guard case .omitted(let kind, let reason) = log.events[2].body else {
            Issue.record("a damaged row is sent as omitted, got \(log.events[2].body)")
            return
        }
        #expect(kind == 0)
        #expect(reason.contains("could not be read"))
        #expect(log.events[3].body.pendingQuestion?.question.handles == [handle("after")])
    }
}
