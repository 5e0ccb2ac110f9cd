import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing
import ZeroMQ

@testable import BrokerCore
@testable import BrokerPostgres
@testable import BrokerSQLite
@testable import FamilyBroker

/// Every device command against every kind of caller: only the allowed succeed; the others get a typed error and
/// change nothing that is stored.
@Suite("Authorization matrix")
struct AuthorizationMatrixTests {
    enum Caller: String, CaseIterable, Sendable {
        case child = "emma"
        case organizer = "alice"
        case guardian = "bob"
        case adult = "carol"
        case otherFamilysParent = "zed"
        case otherFamilysChild = "yuri"
        case revokedDevice = "revoked"
    }

    enum Command: String, CaseIterable, Sendable {
        case hello, ping, sync, ask, knownHandles, answer, setLimits, getLimits, editContacts, revokeApproval,
            setPasscode
        case approveInPerson, ageRequest, ageSetSharing, ageAnswerPrompt, ageClearCache, history
        case ageRegulatoryFeatures, ageAcknowledgeUpdate, declineInPerson

        /// Every broker command of the protocol has a row here, so a new command cannot miss the matrix.
        static let typeCodes: Set<UInt8> = [
            0x01, 0x02, 0x03, 0x05, 0x04, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x06, 0x40, 0x41, 0x42, 0x43, 0x0F,
            0x46, 0x47, 0x10,
        ]
    }

    /// nil: allowed.
    static func expected(_ command: Command, _ caller: Caller) -> ErrorCode? {
        if caller == .revokedDevice { return .notAuthorized }
        let parent = caller == .organizer || caller == .guardian
        switch command {
        case .hello, .ping, .sync:
            return nil
        case .ask, .knownHandles:
            return caller == .child || caller == .otherFamilysChild ? nil : .notAvailable
        case .answer:
            if parent { return nil }
            return caller == .otherFamilysParent ? .notFound : .notAuthorized
        case .setLimits, .editContacts, .revokeApproval, .setPasscode, .history:
            if parent { return nil }
            return caller == .otherFamilysParent ? .notFound : .notAuthorized
        case .getLimits:
            if parent || caller == .child { return nil }
            return caller == .otherFamilysParent ? .notFound : .notAuthorized
        case .approveInPerson, .declineInPerson:
            if caller == .child { return nil }
            return caller == .otherFamilysParent || caller == .otherFamilysChild ? .notFound : .notAuthorized
        case .ageRequest:
            return caller == .child ? nil : .ageNotDeclared  // only emma has a birth date on record
        case .ageSetSharing:
            if parent { return nil }
            return caller == .otherFamilysParent || caller == .otherFamilysChild ? .notFound : .notAuthorized
        case .ageAnswerPrompt:
            return caller == .child ? nil : .notFound  // someone else's prompt is answered as a missing one
        case .ageClearCache:
            return nil  // a member's own cache
        case .ageRegulatoryFeatures:
            return nil  // what the law of a member's own region requires
        case .ageAcknowledgeUpdate:
            return nil  // a member's own acknowledgment (kept in the history for a child)
        }
    }

    static let cases: [(Command, Caller)] = Command.allCases.flatMap { command in Caller.allCases.map { (command, $0) }
    }

    /// Everything a command could change: the logs and questions, settings, contacts, passcodes, the directory.
    static func stored(_ broker: BrokerHarness) async throws -> [String] {
        let fingerprint = try await broker.fingerprint()
        let tables = try await broker.store.read { db in
            let tables = [
                "child_settings", "contact", "passcode", "family_entry", "revoked_key", "known_handle", "question",
                "event_log", "event_index", "event_indexed", "history", "known_handle_recent",
                "age_sharing", "age_cache", "age_prompt",
            ]
            return try tables.flatMap { table in
                try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1").map { "\(table): \($0)" }
            }
        }
        return fingerprint.heads.sorted { $0.key < $1.key }.map { "head \($0.key)=\($0.value)" } + tables
    }

    @Test(arguments: cases)
    func onlyTheAllowedSucceedAndTheOthersChangeNothing(_ command: Command, _ caller: Caller) async throws {
        try await BrokerHarness.with { broker in
            _ = try await broker.engine.applyConfiguration(broker.directory)
            // A revoked device of emma's: enrolled, then revoked.
            let revokedKey = try CurveKeyPair.generate().publicKey
            _ = try await broker.engine.admin(
                AdminRequest(.enroll, member: "emma", device: "revoked", publicKey: revokedKey)
            ) { broker.directory }.get()
            _ = try await broker.engine.admin(AdminRequest(.revoke, device: "revoked")) { broker.directory }.get()
            // Emma's pending question, her passcode, an approved handle.
            #expect(try await broker.send(.setPasscode(childID: "emma", passcode: "2468"), from: "alice").reply == .ok)
            let approved = try #require(try await broker.ask(question(["pal"])).reply.accepted).asked.question.id
            _ = try await broker.answer(approved, "approve", from: "alice")
            let pending = try #require(try await broker.ask(question(["stranger"])).reply.accepted).asked.question.id
            let prompt = try #require(try await Self.openPrompt(broker))

            let message: Message =
                switch command {
                case .hello: .hello(minVersion: 1, maxVersion: 1)
                case .ping: .ping
                case .sync: .sync(after: 0, limit: 10)
                case .ask: .ask(appBundleID: "com.example.chat", question: question(["newfriend"]))
                case .knownHandles: .knownHandles([handle("pal")])
                case .answer: .answer(questionID: pending, choiceID: "approve")
                case .setLimits:
                    .setLimits(childID: "emma", settings: CommunicationSettings(enabled: true, screenTime: .everyone))
                case .getLimits: .getLimits(childID: "emma")
                case .editContacts:
                    .editContacts(childID: "emma", add: [Contact(handle: handle("grandma"))], remove: [])
                case .revokeApproval: .revokeApproval(childID: "emma", handles: [handle("pal")])
                case .setPasscode: .setPasscode(childID: "emma", passcode: "1357")
                case .approveInPerson: .approveInPerson(questionID: pending, passcode: "2468")
                case .declineInPerson: .declineInPerson(questionID: pending, passcode: "2468")
                case .ageRequest: .ageRange(.request(app: "com.example.other", gates: [13]))
                case .ageSetSharing: .ageRange(.setSharing(member: "emma", .always))
                case .ageAnswerPrompt: .ageRange(.answerPrompt(id: prompt, share: false))
                case .ageClearCache: .ageRange(.clearCache(app: "com.example.game"))
                case .ageRegulatoryFeatures: .ageRange(.requestRegulatoryFeatures)
                case .ageAcknowledgeUpdate:
                    .ageRange(.acknowledgeUpdate(app: "com.example.game", description: "New chat rooms"))
                case .history: .history(HistoryQuery(childID: "emma"))
                }
            let device = caller == .revokedDevice ? "revoked" : TestFamily.deviceOf[caller.rawValue]!
            let before = try await Self.stored(broker)
            let outcome = try await broker.sendFrame(MessageCodec.encode(message, requestID: 9), device: device)
            if let code = Self.expected(command, caller) {
                #expect(outcome.reply.errorCode == code, "\(command) by \(caller): \(outcome.reply)")
                #expect(outcome.events.isEmpty, "\(command) by \(caller) published events")
                #expect(try await Self.stored(broker) == before, "\(command) by \(caller) changed stored state")
            } else {
                #expect(outcome.reply.errorCode == nil, "\(command) by \(caller): \(outcome.reply)")
            }
        }
    }

    /// Emma's open Ask First prompt, for `com.example.game`.
    static func openPrompt(_ broker: BrokerHarness) async throws -> UUID? {
        let reply = try await broker.send(.ageRange(.request(app: "com.example.game", gates: [13])), from: "emma").reply
        if case .ageRange(.prompted(let id, _, _)) = reply { return id }
        return nil
    }

    @Test func theMatrixHasARowForEveryBrokerCommand() {
        let commands: [Message] = [
            .hello(minVersion: 1, maxVersion: 1), .sync(after: 0, limit: 1),
            .ask(appBundleID: "a", question: question(["x"])),
            .answer(questionID: UUID(), choiceID: "x"), .knownHandles([]), .ping,
            .setLimits(childID: "x", settings: CommunicationSettings(enabled: true, screenTime: .everyone)),
            .getLimits(childID: "x"), .editContacts(childID: "x", add: [], remove: []),
            .revokeApproval(childID: "x", handles: []),
            .setPasscode(childID: "x", passcode: ""), .approveInPerson(questionID: UUID(), passcode: ""),
            .ageRange(.request(app: "a", gates: [13])), .ageRange(.setSharing(member: "x", .always)),
            .ageRange(.answerPrompt(id: UUID(), share: true)), .ageRange(.clearCache(app: "a")),
            .history(HistoryQuery(childID: "x")), .ageRange(.requestRegulatoryFeatures),
            .ageRange(.acknowledgeUpdate(app: "a", description: "d")),
            .declineInPerson(questionID: UUID(), passcode: ""),
        ]
        #expect(Set(commands.map(\.typeCode)) == Command.typeCodes)
        #expect(Command.allCases.count == Command.typeCodes.count)
    }

    @Test(arguments: StorageBackend.all)
    func noOtherTypeCodeIsRunAsACommand(_ backend: StorageBackend) async throws {
        try await BrokerHarness.with(backend) { broker in
            _ = try await broker.engine.applyConfiguration(broker.directory)
            for code in (0...255).map(UInt8.init) where !Command.typeCodes.contains(code) {
                let frame: [UInt8] = [1, code, 0, 0, 0, 0, 0, 0, 0, 9]
                let reply = try await broker.sendFrame(frame, device: "a1").reply
                #expect(
                    [.unknownMessageType, .malformedMessage].contains(reply.errorCode),
                    "0x\(String(code, radix: 16)): \(reply)")
            }
        }
    }

    /// A caller outside a family names an existing member, question or prompt, then a missing one: the replies are the
    /// same but for the id it named, so it learns nothing about who or what exists.
    @Test(arguments: [Caller.otherFamilysParent, .otherFamilysChild])
    func aStrangerGetsOneAnswerForWhatExistsAndWhatDoesNot(_ caller: Caller) async throws {
        try await BrokerHarness.with { broker in
            _ = try await broker.engine.applyConfiguration(broker.directory)
            let question = try #require(try await broker.ask(question(["pal"])).reply.accepted).asked.question.id
            let prompt = try #require(try await Self.openPrompt(broker))
            let missing = UUID()
            let settings = CommunicationSettings(enabled: true, screenTime: .everyone)
            let pairs: [(existing: Message, missing: Message, ids: (String, String))] = [
                (
                    .setLimits(childID: "emma", settings: settings), .setLimits(childID: "ghost", settings: settings),
                    ("emma", "ghost")
                ),
                (.getLimits(childID: "emma"), .getLimits(childID: "ghost"), ("emma", "ghost")),
                (
                    .editContacts(childID: "emma", add: [], remove: [handle("x")]),
                    .editContacts(childID: "ghost", add: [], remove: [handle("x")]), ("emma", "ghost")
                ),
                (
                    .revokeApproval(childID: "emma", handles: [handle("pal")]),
                    .revokeApproval(childID: "ghost", handles: [handle("pal")]), ("emma", "ghost")
                ),
                (
                    .setPasscode(childID: "emma", passcode: "1234"), .setPasscode(childID: "ghost", passcode: "1234"),
                    ("emma", "ghost")
                ),
                (.history(HistoryQuery(childID: "emma")), .history(HistoryQuery(childID: "ghost")), ("emma", "ghost")),
                (
                    .ageRange(.setSharing(member: "emma", .never)), .ageRange(.setSharing(member: "ghost", .never)),
                    ("emma", "ghost")
                ),
                (
                    .ageRange(.setSharing(member: "carol", .never)), .ageRange(.setSharing(member: "ghost", .never)),
                    ("carol", "ghost")
                ),
                (
                    .answer(questionID: question, choiceID: "approve"),
                    .answer(questionID: missing, choiceID: "approve"),
                    ("\(question)", "\(missing)")
                ),
                (
                    .approveInPerson(questionID: question, passcode: "0000"),
                    .approveInPerson(questionID: missing, passcode: "0000"),
                    ("\(question)", "\(missing)")
                ),
                (
                    .declineInPerson(questionID: question, passcode: "0000"),
                    .declineInPerson(questionID: missing, passcode: "0000"),
                    ("\(question)", "\(missing)")
                ),
                (
                    .ageRange(.answerPrompt(id: prompt, share: true)),
                    .ageRange(.answerPrompt(id: missing, share: true)),
                    ("\(prompt)", "\(missing)")
                ),
            ]
            let before = try await Self.stored(broker)
            for (existing, absent, ids) in pairs {
                let a = try await broker.send(existing, from: caller.rawValue).reply
                let b = try await broker.send(absent, from: caller.rawValue).reply
                #expect(a.errorCode != nil, "\(existing) by \(caller) was allowed: \(a)")
                #expect(a.errorCode == b.errorCode, "\(existing) by \(caller): \(a) vs \(b)")
                let textA = a.errorReply?.message.replacingOccurrences(of: ids.0, with: "ID")
                let textB = b.errorReply?.message.replacingOccurrences(of: ids.1, with: "ID")
                #expect(textA == textB, "\(existing) by \(caller)")
            }
            #expect(try await Self.stored(broker) == before)
        }
    }
}
