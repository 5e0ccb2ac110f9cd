import BrokerCore
import BrokerSQLite
import Foundation
import FuzzSupport
import HearthCore
import HearthProtocol
import Logging
import Synchronization

/// A broker engine over a real SQLite file in a temporary directory, kept across inputs so that asks, answers,
/// settings and prompts build up state; each input is one batch. After each: every command got one well-formed reply
/// (a typed error or a reply type), a refused frame the codec's own error, and the events continue every member's
/// sequence without a gap.
final class BrokerCommandCheck: Sendable {
    static let shared = BrokerCommandCheck()

    let directory: String
    let store: BrokerStore
    let sequences: SequenceBook
    let engine: BrokerEngine
    /// Frames in, replies out: what the broker's socket loop calls.
    let intake: CommandIntake
    private let clock = FuzzClock()
    private let inputs = Atomic<Int>(0)

    private init() {
        do {
            directory = NSTemporaryDirectory() + "hearth-broker-fuzz-\(getpid())"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            store = try BrokerStore(path: directory + "/broker.sqlite")
            sequences = SequenceBook(try store.heads())
            var defaults = ChildDefaults.builtIn
            defaults.askLimit = .init(count: 1_000_000, perSeconds: 3600)
            var logger = Logger(label: "BrokerCommandFuzzer")
            logger.logLevel = .critical
            let clock = self.clock
            engine = BrokerEngine(
                store: store, directory: DirectoryBox(try FuzzFamily.directory()), sequences: sequences, logger: logger,
                policy: BrokerPolicy(childDefaults: defaults, passcodeCost: 10), clock: { clock.now })
            intake = CommandIntake(engine: engine)
        } catch {
            fatalError("the broker fuzzer could not start: \(error)")
        }
        atexit { try? FileManager.default.removeItem(atPath: BrokerCommandCheck.shared.directory) }
    }

    func check(_ bytes: [UInt8]) {
        let commands = BrokerCommandInput.commands(bytes)
        let count = inputs.add(1, ordering: .relaxed).newValue
        clock.advance(seconds: 7)  // prompts and questions expire as inputs go by
        let before = sequences.snapshot()
        let (replies, output) = Self.wait { [intake] in await intake.process(commands) }
        guard replies.count == commands.count else {
            fuzzFailure("\(commands.count) commands got \(replies.count) replies")
        }
        var anySuccess = false
        for (command, reply) in zip(commands, replies) {
            guard reply.routingID == command.routingID else { fuzzFailure("replies out of order") }
            anySuccess = checkReply(reply.frame, to: command) || anySuccess
        }
        if !anySuccess, !output.events.isEmpty { fuzzFailure("a batch of refusals published \(output.events)") }
        checkSequences(output.events, after: before)
        if count % 32 == 0 {
            let before = sequences.snapshot()
            let swept = Self.wait { [engine] in try? await engine.expireQuestions() }
            guard let swept else { fuzzFailure("the expiry sweep failed") }
            checkSequences(swept.events, after: before)
        }
        if count % 256 == 0 { checkStoredHeads() }
    }

    /// Checks one reply; returns whether it is a success (not an error).
    private func checkReply(_ frame: [UInt8], to command: CommandIntake.Inbound) -> Bool {
        guard let reply = try? MessageCodec.decode(frame) else { fuzzFailure("an undecodable reply \(frame)") }
        guard reply.requestID == MessageCodec.peekRequestID(command.frame) else {
            fuzzFailure("reply id \(reply.requestID) to a frame with \(MessageCodec.peekRequestID(command.frame))")
        }
        guard reply.message.typeCode & 0x80 != 0, !reply.message.isBrokerCommand else {
            fuzzFailure("a reply that is not a reply type: \(reply.message)")
        }
        let code: ErrorCode? = if case .error(let error) = reply.message { error.code } else { nil }
        if code == .internalError || code == .unknown { fuzzFailure("\(reply.message) to \(command.frame)") }
        do {
            let message = try MessageCodec.decode(command.frame).message
            if command.deviceID == nil {
                if code != .notAuthorized { fuzzFailure("an unenrolled device got \(reply.message)") }
            } else if !message.isBrokerCommand, code != .unknownMessageType {
                fuzzFailure("\(message), not a broker command, got \(reply.message)")
            }
        } catch {
            // `decode` throws `WireError` only (typed throws): every refusal names the code the broker must reply.
            if code != error.code { fuzzFailure("a frame the codec refuses (\(error)) got \(reply.message)") }
        }
        return code == nil
    }

    /// Every member's events continue its sequence from the head before the batch, and the book moved to the last.
    private func checkSequences(_ events: [Event], after heads: [MemberID: UInt64]) {
        var expected = heads
        for event in events {
            let next = expected[event.memberID, default: 0] + 1
            guard event.sequence == next else {
                fuzzFailure("\(event.memberID)'s event \(event.sequence) after \(next - 1)")
            }
            expected[event.memberID] = next
        }
        for (member, head) in expected where sequences.head(of: member) != head {
            fuzzFailure("\(member)'s head is \(sequences.head(of: member)), its last event \(head)")
        }
    }

    /// The heads in memory are the heads stored.
    private func checkStoredHeads() {
        guard let stored = try? store.heads() else { fuzzFailure("the store's heads could not be read") }
        let book = sequences.snapshot().filter { $0.value > 0 }
        if stored.filter({ $0.value > 0 }) != book { fuzzFailure("stored heads \(stored), in memory \(book)") }
    }

    /// Runs `work` on the cooperative pool and blocks this (libFuzzer's or main) thread until it is done.
    static func wait<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0.take()! }
    }
}
