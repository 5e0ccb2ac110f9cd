import Foundation
import GRDB
import HearthCore
import HearthProtocol
import HearthService
import Logging
import PostgresNIO
import Synchronization
import Testing
import ZeroMQ

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// A clock the test moves by hand. Starts on a whole millisecond so dates survive the wire's millisecond encoding.
final class TestClock: Sendable {
    private let value: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        value = Mutex(start)
    }

    var now: Date { value.withLock { $0 } }

    func advance(by seconds: TimeInterval) { value.withLock { $0 += seconds } }
}

/// The family every engine test uses.
///
/// f1: alice (organizer, a1), bob (guardian, b1), carol (adult, c1), emma (child, e1), tim (child, limits off, t1).
/// f2: zed (organizer, z1), yuri (child, y1). Unaffiliated: nora (child, n1).
enum TestFamily {
    static let members: [MemberID] = ["alice", "bob", "carol", "emma", "tim", "zed", "yuri", "nora"]
    static let deviceOf: [MemberID: DeviceID] = [
        "alice": "a1", "bob": "b1", "carol": "c1", "emma": "e1", "tim": "t1", "zed": "z1", "yuri": "y1", "nora": "n1",
    ]

    static func key() throws -> String { try CurveKeyPair.generate().publicKey }

    static func file() throws -> FamilyFile {
        func member(
            _ id: MemberID, _ role: String, limits: Bool? = nil, birthDate: String? = nil
        ) throws -> FamilyFile.Member {
            FamilyFile.Member(
                id: id, name: id.capitalized, role: role, birthDate: birthDate, region: "US",
                communicationLimits: limits,
                devices: [FamilyFile.Device(id: deviceOf[id]!, publicKey: try key())])
        }
        return FamilyFile(
            families: [
                FamilyFile.Family(
                    id: "f1", name: "One",
                    members: [
                        try member("alice", "organizer"),
                        try member("bob", "guardian"),
                        try member("carol", "adult"),
                        try member("emma", "child", birthDate: "2014-05-06"),
                        try member("tim", "child", limits: false),
                    ]),
                FamilyFile.Family(
                    id: "f2", name: "Two",
                    members: [
                        try member("zed", "organizer"),
                        try member("yuri", "child"),
                    ]),
            ],
            unaffiliated: [try member("nora", "child")])
    }

    static func directory() throws -> Directory {
        try Directory(file: file(), keysDirectory: "/nonexistent", source: "test-family.yaml")
    }
}

/// A fresh temporary directory, removed by `remove()`.
struct TempDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "FamilyBrokerTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var databasePath: String { url.appendingPathComponent("broker.sqlite").path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// What one processed command produced: its decoded reply and the events committed with it.
struct Outcome {
    var reply: Message
    var requestID: UInt64
    var events: [Event]
}

/// A broker engine over a real store (a SQLite file in a temporary directory, or a PostgreSQL database of its own),
/// with a hand-moved clock.
final class BrokerHarness: Sendable {
    let temp: TempDirectory
    /// The store the engine runs on.
    let storage: any BrokerStorage
    private let sqlite: BrokerStore?
    let directory: Directory
    let sequences: SequenceBook
    let engine: BrokerEngine
    /// Frames in, frames out: what the broker's socket loop calls.
    let intake: CommandIntake
    let clock: TestClock
    private let nextRequest = Atomic<UInt64>(100)

    /// The tests' policy: the built-in rules, but asks unlimited (the rate-limit tests set their own) and cheap passcode hashes.
    static let policy: BrokerPolicy = {
        var defaults = ChildDefaults.builtIn
        defaults.askLimit = .init(count: 1_000_000, perSeconds: 3600)
        return BrokerPolicy(childDefaults: defaults, passcodeCost: 10)
    }()

    /// The SQLite store, for tests that look at its file (only on the SQLite backend).
    var store: BrokerStore { sqlite! }

    convenience init(
        temp: TempDirectory? = nil, directory: Directory? = nil, sequences: SequenceBook? = nil,
        clock: TestClock = TestClock(),
        policy: BrokerPolicy = BrokerHarness.policy
    ) async throws {
        let temp = try temp ?? TempDirectory()
        try await self.init(
            storage: try await BrokerStore.opened(at: temp.databasePath), temp: temp, directory: directory,
            sequences: sequences, clock: clock, policy: policy)
    }

    init(
        storage: any BrokerStorage, temp: TempDirectory, directory: Directory? = nil, sequences: SequenceBook? = nil,
        clock: TestClock = TestClock(), policy: BrokerPolicy = BrokerHarness.policy
    ) async throws {
        self.temp = temp
        self.storage = storage
        sqlite = storage as? BrokerStore
        self.directory = try directory ?? TestFamily.directory()
        if let sequences {
            self.sequences = sequences
        } else {
            self.sequences = SequenceBook(try await storage.storedHeads())
        }
        self.clock = clock
        engine = BrokerEngine(
            storage: storage, directory: DirectoryBox(self.directory), sequences: self.sequences, logger: quietLogger,
            policy: policy, clock: { clock.now }, deliver: { _ in })
        intake = CommandIntake(engine: engine)
    }

    /// Runs `body` with a fresh harness on `backend` and removes its store afterwards.
    static func with(
        _ backend: StorageBackend = .sqlite, directory: Directory? = nil, clock: TestClock = TestClock(),
        policy: BrokerPolicy = BrokerHarness.policy, _ body: (BrokerHarness) async throws -> Void
    ) async throws {
        if backend.name == StorageBackend.sqlite.name {
            // The SQLite file in the harness's own directory, where the tests that look at it expect it.
            let harness = try await BrokerHarness(directory: directory, clock: clock, policy: policy)
            defer { harness.temp.remove() }
            return try await body(harness)
        }
        let opened = try await backend.open()
        let temp = try TempDirectory()
        do {
            try await body(
                try await BrokerHarness(
                    storage: opened.store, temp: temp, directory: directory, clock: clock, policy: policy))
        } catch {
            temp.remove()
            await opened.remove()
            throw error
        }
        temp.remove()
        await opened.remove()
    }

    func requestID() -> UInt64 { nextRequest.add(1, ordering: .relaxed).newValue }

    /// Sends `message` from `member`'s device (or from `device` when given) as a batch of one.
    func send(
        _ message: Message, from member: MemberID, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Outcome {
        try await sendFrame(
            MessageCodec.encode(message, requestID: requestID()), device: TestFamily.deviceOf[member],
            sourceLocation: sourceLocation)
    }

    /// Sends a raw frame from a device id as a batch of one.
    func sendFrame(
        _ frame: [UInt8], device: DeviceID?, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Outcome {
        let inbound = CommandIntake.Inbound(routingID: Array("r".utf8), deviceID: device, frame: frame)
        let (replies, output) = await intake.process([inbound])
        try #require(replies.count == 1, sourceLocation: sourceLocation)
        let envelope = try MessageCodec.decode(replies[0].frame)
        #expect(replies[0].routingID == Array("r".utf8), sourceLocation: sourceLocation)
        #expect(
            envelope.requestID == MessageCodec.peekRequestID(frame), "a reply echoes the request id",
            sourceLocation: sourceLocation)
        return Outcome(reply: envelope.message, requestID: envelope.requestID, events: output.events)
    }

    /// Sends several frames in one batch (one transaction); returns the decoded replies in order, and the events.
    func batch(_ commands: [(device: DeviceID?, frame: [UInt8])]) async throws -> (replies: [Message], events: [Event])
    {
        let (replies, output) = await intake.process(
            commands.enumerated().map { index, command in
                CommandIntake.Inbound(routingID: Self.routingID(index), deviceID: command.device, frame: command.frame)
            })
        #expect(replies.map(\.routingID) == commands.indices.map(Self.routingID), "one reply per command, in order")
        return (try replies.map { try MessageCodec.decode($0.frame).message }, output.events)
    }

    static func routingID(_ index: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(index).bigEndian) { Array($0) } }

    func ask(
        _ question: Question, from member: MemberID = "emma", app: BundleID = "com.example.chat"
    ) async throws -> Outcome {
        try await send(.ask(appBundleID: app, question: question), from: member)
    }

    func answer(_ questionID: UUID, _ choiceID: String, from member: MemberID) async throws -> Outcome {
        try await send(.answer(questionID: questionID, choiceID: choiceID), from: member)
    }

    /// Every member's log read through `sync`, with the head each reply carried.
    func logs() async throws -> [MemberID: (head: UInt64, events: [Event])] {
        var logs: [MemberID: (head: UInt64, events: [Event])] = [:]
        for member in TestFamily.members {
            let outcome = try await send(.sync(after: 0, limit: Wire.maxEventsPerSync), from: member)
            #expect(outcome.events.isEmpty, "sync publishes nothing")
            let reply = try #require(outcome.reply.eventsReply, "sync by \(member) → \(outcome.reply)")
            logs[member] = reply
        }
        return logs
    }

    /// A comparable fingerprint of everything stored: heads, every log, the question and known-handle tables.
    func fingerprint() async throws -> StoreFingerprint {
        let logs = try await logs()
        let tables = try await tableRows()
        return StoreFingerprint(
            heads: try await storage.storedHeads(), book: sequences.snapshot(), logs: logs.mapValues { $0.events },
            questions: tables.questions, knownHandles: tables.knownHandles, history: try await historyRows())
    }

    /// The question and known-handle tables, one string per row, in the store's own SQL.
    private func tableRows() async throws -> (questions: [String], knownHandles: [String]) {
        if let sqlite {
            return try await sqlite.read { db in
                (
                    try String.fetchAll(
                        db,
                        sql:
                            "SELECT hex(id) || ':' || status || ':' || ifnull(hex(resolution), '-') FROM question ORDER BY id"
                    ),
                    try String.fetchAll(
                        db,
                        sql: """
                            SELECT child_id || ':' || kind || ':' || value FROM known_handle
                            UNION ALL SELECT child_id || ':' || kind || ':' || value FROM known_handle_recent ORDER BY 1
                            """)
                )
            }
        }
        return try await postgresStrings(
            """
            SELECT id::text || ':' || status || ':' || coalesce(encode(resolution, 'hex'), '-') FROM question ORDER BY id
            """,
            "SELECT child_id || ':' || kind || ':' || value FROM known_handle ORDER BY 1")
    }

    /// The family history table, one string per row.
    private func historyRows() async throws -> [String] {
        if let sqlite {
            return try await sqlite.read { db in
                try String.fetchAll(
                    db,
                    sql:
                        "SELECT id || ':' || family_id || ':' || child_id || ':' || hex(entry) FROM history ORDER BY id"
                )
            }
        }
        return try await postgresStrings(
            "SELECT id::text || ':' || family_id || ':' || child_id || ':' || encode(entry, 'hex') FROM history ORDER BY id",
            "SELECT ''"
        ).0
    }

    /// The first column of each query's rows, on the PostgreSQL store.
    private func postgresStrings(_ first: String, _ second: String) async throws -> ([String], [String]) {
        try await storage.reading { reader in
            let tx = reader as! PostgresTransaction
            return (
                try tx.rows(PostgresQuery(unsafeSQL: first)).map { try $0.decode(String.self) },
                try tx.rows(PostgresQuery(unsafeSQL: second)).map { try $0.decode(String.self) }
            )
        }
    }

    func questionCount() async throws -> Int {
        if let sqlite {
            return try await sqlite.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM question") ?? 0 }
        }
        return Int(try await postgresStrings("SELECT COUNT(*)::text FROM question", "SELECT ''").0.first ?? "") ?? 0
    }

    func storedQuestion(_ id: UUID) async throws -> (asked: AskedQuestion, resolution: Resolution?)? {
        try await storage.reading { reader in
            try reader.question(id).map { ($0.asked, $0.resolution) }
        }
    }
}

struct StoreFingerprint: Equatable {
    var heads: [MemberID: UInt64]
    var book: [MemberID: UInt64]
    var logs: [MemberID: [Event]]
    var questions: [String]
    var knownHandles: [String]
    var history: [String]
}

// MARK: - building questions

func handle(_ value: String, _ kind: CommunicationHandle.Kind = .custom) -> CommunicationHandle {
    CommunicationHandle(value: value, kind: kind)
}

/// emma's question about the handle `value`, from com.example.chat on e1, asked at `date`.
func emmasQuestion(_ value: String, at date: Date = StorageContractTests.now) -> AskedQuestion {
    AskedQuestion(
        question: question([value]), childMemberID: "emma", appBundleID: "com.example.chat", askingDeviceID: "e1",
        askedAt: date)
}

/// A communication question about `handles` (custom handles), with Apple's default choices unless told.
func question(
    _ handles: [String], id: UUID = UUID(), choices: [PermissionChoice] = [.approve, .decline],
    defaultChoiceID: String = PermissionChoice.decline.id, expirationDate: Date? = nil
) -> Question {
    Question(
        id: id,
        topic: .communication(
            CommunicationTopic(
                personInformation: handles.map { PersonInformation(handle: handle($0)) }, actions: [.message])),
        choices: choices, defaultChoiceID: defaultChoiceID, expirationDate: expirationDate)
}

/// `question` as the broker keeps it once it is pending from `date`: expiring after the standard lifetime unless
/// it expires earlier.
func pendingForm(of question: Question, askedAt date: Date) -> Question {
    var pending = question
    let latest = date.addingTimeInterval(QuestionTimes.standard.lifetime)
    pending.expirationDate = min(question.expirationDate ?? latest, latest)
    return pending
}

// MARK: - reading replies and events

extension Message {
    var errorReply: ErrorReply? {
        if case .error(let reply) = self { return reply }
        return nil
    }

    var errorCode: ErrorCode? { errorReply?.code }

    var accepted: (asked: AskedQuestion, resolution: Resolution?)? {
        if case .askAccepted(let asked, let resolution) = self { return (asked, resolution) }
        return nil
    }

    var answerResolution: Resolution? {
        if case .answerAccepted(let resolution) = self { return resolution }
        return nil
    }

    var eventsReply: (head: UInt64, events: [Event])? {
        if case .events(let head, let events) = self { return (head, events) }
        return nil
    }

    var knownHandles: [CommunicationHandle]? {
        if case .knownHandlesResult(let handles) = self { return handles }
        return nil
    }
}

extension Event.Body {
    var pendingQuestion: AskedQuestion? {
        if case .questionPending(let asked) = self { return asked }
        return nil
    }

    var resolved: (asked: AskedQuestion, resolution: Resolution)? {
        if case .questionResolved(let asked, let resolution) = self { return (asked, resolution) }
        return nil
    }

    var handlesChange: (added: [CommunicationHandle], removed: [CommunicationHandle])? {
        if case .handlesChanged(let added, let removed) = self { return (added, removed) }
        return nil
    }
}

extension [Event] {
    func of(_ member: MemberID) -> [Event] { filter { $0.memberID == member } }
    var recipients: Set<MemberID> { Set(map(\.memberID)) }
}

/// Expects two directories to hold the same members, devices, keys, parents and file.
func expectSame(_ a: Directory, _ b: Directory, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(a.members == b.members, sourceLocation: sourceLocation)
    #expect(a.devices == b.devices, sourceLocation: sourceLocation)
    #expect(a.deviceByKey == b.deviceByKey, sourceLocation: sourceLocation)
    #expect(a.parentsByFamily == b.parentsByFamily, sourceLocation: sourceLocation)
    #expect(a.file == b.file, sourceLocation: sourceLocation)
}
