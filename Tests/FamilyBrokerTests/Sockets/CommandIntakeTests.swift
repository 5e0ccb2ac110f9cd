import Foundation
import HearthCore
import HearthProtocol
import Logging
import Testing
import ZeroMQ

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Frames are decoded and their sender checked before the writer queue: what fails there costs no transaction.
@Suite struct CommandIntakeTests {
    /// An engine over a fresh store that counts its committed transactions.
    func withIntake(_ body: (CommandIntake, Seen<Int>) async throws -> Void) async throws {
        let temp = try TempDirectory()
        defer { temp.remove() }
        let store = try await BrokerStore.opened(at: temp.databasePath)
        let commits = Seen<Int>()
        var logger = Logger(label: "CommandIntakeTests")
        logger.logLevel = .critical
        let engine = BrokerEngine(
            store: store, directory: DirectoryBox(try TestFamily.directory()), sequences: SequenceBook(),
            logger: logger,
            policy: BrokerHarness.policy, deliver: { output in commits.append(output.events.count) })
        try await body(CommandIntake(engine: engine), commits)
    }

    func inbound(_ frame: [UInt8], from device: DeviceID? = "e1", routing: UInt8 = 0) -> CommandIntake.Inbound {
        CommandIntake.Inbound(routingID: [routing], deviceID: device, frame: frame)
    }

    @Test func eachRefusalBeforeTheWriterIsTyped() throws {
        let directory = try TestFamily.directory()
        func refusal(_ inbound: CommandIntake.Inbound) -> ErrorReply? {
            if case .failure(let error) = CommandIntake.check(inbound, directory: directory) { return error }
            return nil
        }
        #expect(refusal(inbound([1, 3, 0])).map(\.code) == WireError.truncated(field: "").code)
        #expect(refusal(inbound(MessageCodec.encode(.ping), from: nil))?.code == .notAuthorized)
        #expect(refusal(inbound(MessageCodec.encode(.ping), from: "stranger"))?.code == .notAuthorized)
        #expect(
            refusal(inbound(MessageCodec.encode(.pong(head: 1))))?.message
                == "message type 0x86 is not a broker command")
        #expect(
            refusal(inbound(MessageCodec.encode(.hello(minVersion: Wire.highestVersion + 1, maxVersion: 9))))?.code
                == .unsupportedVersion)
        guard
            case .success(let request) = CommandIntake.check(inbound(MessageCodec.encode(.ping)), directory: directory)
        else {
            Issue.record("a ping from an enrolled device is a command")
            return
        }
        #expect(request.deviceID == "e1" && request.memberID == "emma" && request.command == .ping)
    }

    @Test func aBatchOfRefusedFramesRunsNoTransaction() async throws {
        try await withIntake { (intake, commits) async throws in
            let frames = [
                inbound([1, 3, 0, 0, 0, 0, 0, 0, 0, 7, 0xFF], routing: 1),
                inbound(MessageCodec.encode(.ping, requestID: 8), from: "stranger", routing: 2),
                inbound(MessageCodec.encode(.ok, requestID: 9), routing: 3),
            ]
            let (replies, _) = await intake.process(frames)
            #expect(replies.map(\.routingID) == [[1], [2], [3]])
            #expect(try replies.map { try MessageCodec.decode($0.frame).requestID } == [7, 8, 9])
            #expect(replies.allSatisfy { if case .failure = $0.outcome { true } else { false } })
            #expect(commits.all.isEmpty, "no transaction for a batch that holds no command")
        }
    }

    @Test func refusedFramesTakeNoPlaceInTheBatchesTransaction() async throws {
        try await withIntake { (intake, commits) async throws in
            let ask = MessageCodec.encode(
                .ask(appBundleID: "com.example.chat", question: question(["x"])), requestID: 2)
            let frames = [
                inbound([1, 3], routing: 1),
                inbound(ask, routing: 2),
                inbound(MessageCodec.encode(.ping, requestID: 3), from: nil, routing: 3),
                inbound(MessageCodec.encode(.ping, requestID: 4), from: "a1", routing: 4),
            ]
            let (replies, committed) = await intake.process(frames)
            #expect(replies.map(\.routingID) == [[1], [2], [3], [4]], "one reply per frame, in order")
            let messages = try replies.map { try MessageCodec.decode($0.frame).message }
            #expect(messages[0].errorCode != nil && messages[2].errorCode == .notAuthorized)
            #expect(messages[1].accepted != nil)
            #expect(messages[3] == .pong(head: 1), "alice's log holds the question")
            #expect(commits.all == [3], "one transaction: the question to emma, alice and bob")
            #expect(committed.events.count == 3)
        }
    }

    @Test func aHelloBelowVersionTwoKeepsItsMembersEventsOnePerFrame() async throws {
        try await withIntake { (intake, _) async throws in
            let hellos = [
                inbound(MessageCodec.encode(.hello(minVersion: 1, maxVersion: 2), requestID: 1), from: "e1"),
                inbound(MessageCodec.encode(.hello(minVersion: 1, maxVersion: 9), requestID: 2), from: "b1"),
                inbound(MessageCodec.encode(.hello(minVersion: 1, maxVersion: 1), requestID: 3), from: "a1"),
            ]
            let (replies, _) = await intake.process(hellos)
            let versions = try replies.map { reply -> UInt8? in
                guard case .welcome(let version, _, _, _, _, _) = try MessageCodec.decode(reply.frame).message else {
                    return nil
                }
                return version
            }
            #expect(
                versions == [2, Wire.highestVersion, 1], "each device is welcomed with the highest version both speak")
            #expect(intake.singleEventMembers.all == ["alice"])
        }
    }

    /// An acknowledged update (history kind 11, version 3) reaches a parent's device that negotiated 3; one that
    /// negotiated 2 would refuse the whole page for it, and gets the page without it.
    @Test func aHistoryPageHoldsOnlyTheKindsItsDeviceNegotiated() async throws {
        try await withIntake { (intake, _) async throws in
            let acknowledge = Message.ageRange(.acknowledgeUpdate(app: "com.example.chat", description: "Adds calls"))
            let setup = [
                inbound(MessageCodec.encode(acknowledge, requestID: 1), from: "e1"),
                inbound(MessageCodec.encode(.hello(minVersion: 1, maxVersion: 2), requestID: 2), from: "a1"),
                inbound(MessageCodec.encode(.hello(minVersion: 1, maxVersion: 3), requestID: 3), from: "b1"),
            ]
            let (done, _) = await intake.process(setup)
            #expect(try MessageCodec.decode(done[0].frame).message == .ok)
            let history = MessageCodec.encode(.history(HistoryQuery(childID: "emma")), requestID: 4)
            let (pages, _) = await intake.process([inbound(history, from: "a1"), inbound(history, from: "b1")])
            let kinds = try pages.map { reply -> [HistoryEntry.Kind] in
                guard case .historyPage(_, let entries, _) = try MessageCodec.decode(reply.frame).message else {
                    return []
                }
                return entries.map(\.kind)
            }
            #expect(kinds == [[], [.updateAcknowledged]])
        }
    }

    @Test func batchesPreparedApartRunInOneTransactionAnsweredInOrder() async throws {
        try await withIntake { (intake, commits) async throws in
            let ask = MessageCodec.encode(
                .ask(appBundleID: "com.example.chat", question: question(["x"])), requestID: 2)
            let first = intake.prepare([inbound([1, 3], routing: 1), inbound(ask, routing: 2)])
            let second = intake.prepare([inbound(MessageCodec.encode(.ping, requestID: 3), from: "a1", routing: 3)])
            let (replies, _) = await intake.run(.merging([first, second]))
            #expect(replies.map(\.routingID) == [[1], [2], [3]], "one reply per frame, in the order they came")
            let messages = try replies.map { try MessageCodec.decode($0.frame).message }
            #expect(messages[0].errorCode != nil && messages[1].accepted != nil)
            #expect(messages[2] == .pong(head: 1), "the ping ran after the ask, in the same transaction")
            #expect(commits.all == [3])
        }
    }

    /// The broker prepares a batch while the writer commits the one before. A device enrolled by that commit has its
    /// prepared command run, not refused as unknown; one revoked by it is refused (the transaction checks too).
    @Test func aBatchPreparedBeforeItsDeviceWasEnrolledOrRevokedIsCheckedAgain() async throws {
        try await withIntake { (intake, _) async throws in
            let engine = intake.engine
            _ = try await engine.applyConfiguration(engine.directory.current)
            func admin(_ request: AdminRequest) async throws -> AdminResult {
                try await engine.admin(request) {
                    throw ConfigurationError(source: "family.yaml", key: "", reason: "no file in this test")
                }.get()
            }
            let beforeEnrolled = intake.prepare([inbound(MessageCodec.encode(.ping, requestID: 4), from: "e2")])
            let key = try CurveKeyPair.generate().publicKey
            _ = try await admin(AdminRequest(.enroll, member: "emma", device: "e2", publicKey: key))
            let (enrolled, _) = await intake.run(beforeEnrolled)
            #expect(try MessageCodec.decode(enrolled[0].frame).message == .pong(head: 0))

            let beforeRevoked = intake.prepare([inbound(MessageCodec.encode(.ping, requestID: 5), from: "e1")])
            #expect(try await admin(AdminRequest(.revoke, device: "e1")).disconnectedDevices == ["e1"])
            let (revoked, committed) = await intake.run(beforeRevoked)
            #expect(try MessageCodec.decode(revoked[0].frame).message.errorCode == .notAuthorized)
            #expect(committed.events.isEmpty)
        }
    }

    /// On a store that bounds its transactions, what the writer takes at once is split into groups of at most that
    /// many commands, in order, each answered after its own commit; a batch longer than the bound stays whole.
    @Test func batchesAreGroupedUpToTheStoresBoundInOrder() async throws {
        try await withIntake { (intake, _) async throws in
            var next: UInt8 = 0
            func batch(_ count: Int) -> CommandIntake.Prepared {
                intake.prepare(
                    (0..<count).map { _ in
                        next &+= 1
                        return inbound(MessageCodec.encode(.ping, requestID: UInt64(next)), routing: next)
                    })
            }
            let batches = [batch(30), batch(30), batch(10), batch(100), batch(5)]
            let groups = CommandIntake.Prepared.grouping(batches, limit: 64)
            #expect(groups.map(\.count) == [60, 10, 100, 5])
            let routing = groups.flatMap { $0.inbound.map(\.routingID) }
            #expect(routing == batches.flatMap { $0.inbound.map(\.routingID) })
            #expect(CommandIntake.Prepared.grouping(batches, limit: nil).map(\.count) == [175])
        }
    }
}
