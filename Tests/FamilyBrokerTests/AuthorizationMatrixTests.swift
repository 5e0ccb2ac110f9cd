import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Testing
import ZeroMQ

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
        case hello, ping, sync, ask, knownHandles, answer, setLimits, getLimits, editContacts, revokeApproval, setPasscode, approveInPerson
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
        case .setLimits, .editContacts, .revokeApproval, .setPasscode:
            if parent { return nil }
            return caller == .otherFamilysParent ? .notFound : .notAuthorized
        case .getLimits:
            if parent || caller == .child { return nil }
            return caller == .otherFamilysParent ? .notFound : .notAuthorized
        case .approveInPerson:
            if caller == .child { return nil }
            return caller == .otherFamilysParent || caller == .otherFamilysChild ? .notFound : .notAuthorized
        }
    }

    static let cases: [(Command, Caller)] = Command.allCases.flatMap { command in Caller.allCases.map { (command, $0) } }

    /// Everything a command could change: the logs and questions, settings, contacts, passcodes, the directory.
    static func stored(_ broker: BrokerHarness) async throws -> [String] {
        let fingerprint = try await broker.fingerprint()
        let tables = try await broker.store.read { db in
            try ["child_settings", "contact", "passcode", "family_entry", "revoked_key", "known_handle", "question", "event"].flatMap { table in
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
            _ = try await broker.engine.admin(AdminRequest(.enroll, member: "emma", device: "revoked", publicKey: revokedKey)) { broker.directory }.get()
            _ = try await broker.engine.admin(AdminRequest(.revoke, device: "revoked")) { broker.directory }.get()
            // Emma's pending question, her passcode, an approved handle.
            #expect(try await broker.send(.setPasscode(childID: "emma", passcode: "2468"), from: "alice").reply == .ok)
            let approved = try #require(try await broker.ask(question(["pal"])).reply.accepted).asked.question.id
            _ = try await broker.answer(approved, "approve", from: "alice")
            let pending = try #require(try await broker.ask(question(["stranger"])).reply.accepted).asked.question.id

            let message: Message = switch command {
            case .hello: .hello(minVersion: 1, maxVersion: 1)
            case .ping: .ping
            case .sync: .sync(after: 0, limit: 10)
            case .ask: .ask(appBundleID: "com.example.chat", question: question(["newfriend"]))
            case .knownHandles: .knownHandles([handle("pal")])
            case .answer: .answer(questionID: pending, choiceID: "approve")
            case .setLimits: .setLimits(childID: "emma", settings: CommunicationSettings(enabled: true, screenTime: .everyone))
            case .getLimits: .getLimits(childID: "emma")
            case .editContacts: .editContacts(childID: "emma", add: [Contact(handle: handle("grandma"))], remove: [])
            case .revokeApproval: .revokeApproval(childID: "emma", handles: [handle("pal")])
            case .setPasscode: .setPasscode(childID: "emma", passcode: "1357")
            case .approveInPerson: .approveInPerson(questionID: pending, passcode: "2468")
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
}
