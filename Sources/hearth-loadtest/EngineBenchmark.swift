import BrokerCore
import BrokerSQLite
import FamilyBroker
import Foundation
import HearthCore
import HearthProtocol
import Logging
import ZeroMQ

/// The engine and its SQLite store in one process, without sockets: batches of asks and answers shaped as the
/// closed-loop load test makes them, run through `CommandIntake` as the broker runs them, timed by the writer
/// thread's CPU (`hearth-loadtest engine`, docs/PERFORMANCE.md). Here, not in FamilyBroker, so that the shipped broker
/// does not carry it: it reaches the broker's insides through their `package` access.
///
/// Families `f<i>` have an organizer `p<i>` and a child `c<i>`, one device each, as `hearth-loadtest cycle` enrols
/// them. Each batch holds up to `batch / 2` new asks, children taken in turn, and the answers to the previous batch's
/// asks by their organizers: one cycle per ask. The store is a real file with the broker's durable settings and its
/// background checkpointer, and each commit's events are framed for publication on the writer, as the broker does.
final class EngineBenchmark {
    /// What to run.
    struct Options: Sendable {
        var families = 200
        /// Commands per batch (one transaction), asks and answers together.
        var batch = 256
        /// Random question ids (as apps make them) instead of ascending ones.
        var randomIDs = false

        init() {}
    }

    /// What one round of batches cost.
    struct Round: Sendable {
        /// Answered asks.
        var cycles: Int
        var transactions: Int
        /// The writer thread's CPU time inside the transactions (`BrokerStore.writerCPUTime`).
        var writerCPU: Duration
        /// The whole process: decoding and encoding on the cooperative pool, the checkpointer, the driver.
        var processCPU: Duration
        var wall: Duration
    }

    let options: Options
    let store: BrokerStore
    let intake: CommandIntake
    let directory: String
    private var asked: UInt64 = 0
    /// The previous batch's asks, answered in the next one.
    private var unanswered: [(question: UUID, family: Int)] = []

    /// Enrols the families in a new store in `directory` (created; `remove()` deletes it).
    init(_ options: Options, directory: String) async throws {
        self.options = options
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var logger = Logger(label: "engine-benchmark")
        logger.logLevel = .warning
        let store = try BrokerStore(path: directory + "/broker.sqlite")
        try store.startBackgroundCheckpoints(logger: logger)
        var policy = BrokerPolicy()
        // As `hearth-loadtest cycle` launches the broker: a simulated child asks far more than a person.
        policy.childDefaults.askLimit = .init(count: 1_000_000_000, perSeconds: 1)
        let file = try Self.familyFile(families: options.families)
        let sequences = SequenceBook(try store.heads())
        let (box, _) = try await FamilyBrokerService.startupDirectory(
            store, sequences: sequences, policy: policy, logger: logger, clock: Date.init
        ) { try Directory(file: file, keysDirectory: directory, source: "engine benchmark", rules: policy.regions) }
        let metrics = BrokerMetrics()
        let engine = BrokerEngine(
            store: store, directory: box, sequences: sequences, logger: logger, policy: policy, clock: Date.init,
            deliver: { output in
                // What the broker's `deliver` does on the writer, but for handing the frames to the socket loop.
                let publications = BrokerFrames.publications(
                    events: output.events, frames: output.eventFrames, singles: [])
                precondition(publications.count <= output.events.count)
                metrics.record(output)
            })
        self.store = store
        intake = CommandIntake(engine: engine)
    }

    /// Runs `batches` batches; throws if any command was refused.
    func round(batches: Int) async throws -> Round {
        let prepared = (0..<batches).map { _ in nextBatch() }
        let cycles = prepared.reduce(0) { $0 + $1.answers }
        let writer = store.writerCPUTime
        let process = Self.processCPU()
        let start = ContinuousClock.now
        for batch in prepared {
            let (replies, _) = await intake.process(batch.commands)
            for reply in replies { try Self.check(reply.outcome) }
        }
        return Round(
            cycles: cycles, transactions: batches, writerCPU: store.writerCPUTime - writer,
            processCPU: Self.processCPU() - process, wall: ContinuousClock.now - start)
    }

    /// Deletes the store's directory.
    func remove() { try? FileManager.default.removeItem(atPath: directory) }

    /// The next batch: the previous batch's asks answered, and new asks, interleaved.
    private func nextBatch() -> (commands: [CommandIntake.Inbound], answers: Int) {
        let answering = unanswered
        unanswered = []
        var commands: [CommandIntake.Inbound] = []
        commands.reserveCapacity(options.batch)
        for index in 0..<max(options.batch / 2, answering.count) {
            if index < answering.count {
                let (question, family) = answering[index]
                let frame = MessageCodec.encode(
                    .answer(questionID: question, choiceID: PermissionChoice.approve.id), requestID: UInt64(index))
                commands.append(.init(routingID: [1], deviceID: "p\(family)-d", frame: frame))
            }
            if index < options.batch / 2 { commands.append(ask()) }
        }
        return (commands, answering.count)
    }

    private func ask() -> CommandIntake.Inbound {
        let counter = asked
        asked += 1
        let family = Int(counter % UInt64(options.families))
        let id = options.randomIDs ? UUID() : Self.ascendingID(counter)
        // A handle of its own, so that the broker neither finds it known already nor merges it with a pending ask.
        let handle = CommunicationHandle(value: "h\(counter)", kind: .custom)
        let question = Question(
            id: id,
            topic: .communication(
                CommunicationTopic(personInformation: [PersonInformation(handle: handle)], actions: [.message])))
        unanswered.append((id, family))
        let frame = MessageCodec.encode(.ask(appBundleID: "com.example.load", question: question), requestID: counter)
        return .init(routingID: [0], deviceID: "c\(family)-d", frame: frame)
    }

    /// An ask must reach the parents and an answer be accepted: anything else would time other work.
    private static func check(_ outcome: CommandOutcome) throws {
        switch outcome {
        case .success(.askAccepted(_, nil)), .success(.answerAccepted): return
        case .success(let reply): throw ErrorReply(.internalError, "engine benchmark: unexpected reply \(reply)")
        case .failure(let error): throw error
        }
    }

    /// Ids that ascend with `counter`, as `hearth-loadtest`'s own (`QuestionTag`) do.
    private static func ascendingID(_ counter: UInt64) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        bytes[0] = 0x48
        for i in 0..<8 { bytes[8 + i] = UInt8(truncatingIfNeeded: counter >> (56 - 8 * i)) }
        return bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    /// The families as `hearth-loadtest cycle`'s fleet enrols them (`Fleet`): names, birth dates and region alike.
    private static func familyFile(families: Int) throws -> FamilyFile {
        func member(_ id: MemberID, _ role: String, born: String, limits: Bool?) throws -> FamilyFile.Member {
            FamilyFile.Member(
                id: id, name: id, role: role, birthDate: born, region: "US", communicationLimits: limits,
                devices: [.init(id: id + "-d", publicKey: try CurveKeyPair.generate().publicKey)])
        }
        return FamilyFile(
            families: try (0..<families).map { f in
                FamilyFile.Family(
                    id: "f\(f)", name: "f\(f)",
                    members: [
                        try member("p\(f)", "organizer", born: "1985-01-01", limits: nil),
                        try member("c\(f)", "child", born: "2016-01-01", limits: true),
                    ])
            })
    }

    private static func processCPU() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
