import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import PermissionKit
import Testing

/// A real family-broker process fed random and mutated frames by enrolled CURVE peers: it stays up, answers each frame
/// with the typed error the codec names (or, for a command the caller may not give, the authorization error), and
/// stores nothing. `HEARTH_FUZZ_ITERATIONS` and `HEARTH_FUZZ_SEED` lengthen or vary the run (docs/SECURITY.md).
@Suite("Broker under hostile frames", .serialized, .tags(.fleet, .slow))
struct BrokerFuzzTests {
    static let spec = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                // No birth date: an age range request by the adult is refused (`ageNotDeclared`), so it changes nothing.
                .init("uncle", role: .adult, birthDate: "", devices: ["uncle-laptop"]),
                .child("emma", devices: ["emma-tablet"]),
            ])
    ])

    static var iterations: Int {
        ProcessInfo.processInfo.environment["HEARTH_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 3000
    }

    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["HEARTH_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0x4845_4152_5448
    }

    /// Every broker command's type code, from the protocol's one list of types (`MessageType.isBrokerCommand`).
    static let commandTypes = Set(MessageType.allCases.filter(\.isBrokerCommand).map(\.rawValue))

    /// What the broker must answer to one case.
    enum Expected {
        /// Exactly this reply, whoever sends it: the frame cannot be decoded, or it is not a broker command.
        case exactly(Message, kind: String)
        /// A decodable broker command: the reply depends on the caller's role.
        case command(Message)
        /// A command the adult may give and that changes stored state (its own age range sharing): nobody sends it.
        case adultsOwn(Message)
    }

    static func expected(_ item: FrameFuzzer.Case) -> Expected {
        func refusal(_ error: WireError) -> Expected {
            // The case's name: every WireError case has a payload, so it is the reflected child's label.
            .exactly(
                .error(ErrorReply(error.code, error.description)),
                kind: Mirror(reflecting: error).children.first?.label ?? "\(error)")
        }
        guard item.frames.count == 1 else { return refusal(.wrongFrameCount(expected: 1, got: item.frames.count)) }
        do {
            let message = try MessageCodec.decode(item.frames[0]).message
            if case .ageRange(.setSharing("uncle", _)) = message { return .adultsOwn(message) }
            // Decoded ones may act, so only a caller who may change nothing sends them.
            if message.isBrokerCommand { return .command(message) }
            let text = "message type 0x\(String(message.typeCode, radix: 16)) is not a broker command"
            return .exactly(.error(ErrorReply(.unknownMessageType, text)), kind: "notACommand")
        } catch {
            return refusal(error)
        }
    }

    /// Whether `reply` is right for `command` from an adult, who may read its own (empty) log and change nothing.
    static func adultMayGet(_ reply: Message, for command: Message) -> Bool {
        let code: ErrorCode? = if case .error(let error) = reply { error.code } else { nil }
        switch command {
        case .hello:
            if case .welcome(_, _, "uncle", "uncle-laptop", .adult, _) = reply { return true }
            return code == .unsupportedVersion
        case .sync:
            if case .events(0, []) = reply { return true }
            return false
        case .ping:
            return reply == .pong(head: 0)
        case .ask, .knownHandles:
            return code == .notAvailable
        case .answer, .setLimits, .getLimits, .editContacts, .revokeApproval, .setPasscode, .listApproved, .history:
            return code == .notAuthorized
        case .approveInPerson, .declineInPerson, .withdraw:
            return code == .notFound || code == .notAuthorized
        case .ageRange(.clearCache(let app)):
            return reply == .ageRange(.cacheCleared(app: app, existed: false))
        case .ageRange(.requestRegulatoryFeatures):
            if case .ageRange(.regulatoryFeatures) = reply { return true }
            return false
        case .ageRange(.acknowledgeUpdate):
            // Nothing is kept for an adult; a description that breaks the text rule is refused first.
            return reply == .ok || code == .invalidText || code == .rateLimited
        case .ageRange(let message):
            return adultMayGet(code, for: message)
        default:
            return false
        }
    }

    /// The age range commands: the adult has no birth date, no prompts and no cache, and may set only its own sharing.
    static func adultMayGet(_ code: ErrorCode?, for command: AgeRangeMessage) -> Bool {
        switch command {
        case .request: code == .invalidAgeRequest || code == .ageNotDeclared
        case .setSharing: code == .notAuthorized || code == .notFound
        case .answerPrompt: code == .notFound
        default: false
        }
    }

    @Test func hostileFramesGetTypedErrorsAndChangeNothing() async throws {
        try await Fleet.with(Self.spec, brokerArguments: ["--device-rate", "100000"]) { fleet in
            let pending = try await Self.storeSomething(in: fleet)
            let organizer = try await RawPeer.device("alice-phone", of: fleet)
            let adult = try await RawPeer.device("uncle-laptop", of: fleet)
            // Alice's log: the three settings changes (history entries), then pal asked and answered, stranger asked.
            #expect(try await organizer.request(.ping, requestID: 1) == .pong(head: 6))
            #expect(try await adult.request(.ping, requestID: 1) == .pong(head: 0))
            let before = try BrokerSnapshot(fleet)
            let pid = fleet.currentBroker.pid

            var fuzzer = FrameFuzzer(seed: Self.seed, child: "emma", questionID: pending)
            let cases =
                FrameFuzzer.crafted(child: "emma", questionID: pending)
                + (0..<Self.iterations).map { _ in fuzzer.next() }
            // The organizer could change emma's settings: it sends only what must be refused whoever sends it.
            let refusable = cases.filter { if case .exactly = Self.expected($0) { true } else { false } }
            var kinds = try await Self.exchange(refusable, with: organizer, role: "organizer")
            // The adult may change nothing but its own sharing: it sends everything else, decodable commands included.
            let adultsOwn = cases.filter { if case .adultsOwn = Self.expected($0) { true } else { false } }
            let adultCases = cases.filter { if case .adultsOwn = Self.expected($0) { false } else { true } }
            kinds.merge(try await Self.exchange(adultCases, with: adult, role: "adult")) { $0 + $1 }

            #expect(fleet.currentBroker.isRunning && fleet.currentBroker.pid == pid, "the broker never crashed")
            #expect(try await organizer.request(.ping, requestID: 2) == .pong(head: 6), "and still answers")
            #expect(try await adult.request(.ping, requestID: 2) == .pong(head: 0))
            for device in ["alice-phone", "emma-tablet", "uncle-laptop"] {
                try await fleet.waitUntilLinked(device, timeout: .seconds(10))
            }
            let after = try BrokerSnapshot(fleet)
            #expect(after == before, "stored state changed: before \(before), after \(after)")
            // Every way the codec refuses a frame was reached, so the run tested what it claims to.
            let wanted = Set([
                "truncated", "invalidUTF8", "unknownEnumValue", "tooLong", "trailingBytes", "unsupportedVersion",
                "unknownMessageType", "invalidValue", "wrongFrameCount", "notACommand",
            ]).union(Self.commandTypes.map(Self.commandKind))
            #expect(wanted.isSubset(of: Set(kinds.keys)), "reached: \(kinds)")
            #expect(adultsOwn.count < 10, "the adult's own settings are rare: \(adultsOwn.count)")
            #expect(refusable.count > Self.iterations / 2)
            await organizer.close()
            await adult.close()
        }
    }

    @Test func framesOverTheSizeLimitDropOnlyThatConnection() async throws {
        try await Fleet.with(Self.spec, brokerArguments: ["--device-rate", "100000"]) { fleet in
            let peer = try await RawPeer.device("uncle-laptop", of: fleet)
            #expect(try await peer.request(.ping, requestID: 1) == .pong(head: 0))
            let before = try BrokerSnapshot(fleet)
            // ZMQ_MAXMSGSIZE: libzmq closes the connection instead of reading the frame; the DEALER reconnects.
            peer.send(frames: [[1, 0x06] + [UInt8](repeating: 0, count: Wire.maxFrameSize)])
            var pong: Message?
            for attempt in 2...40 where pong == nil {
                pong = try? await peer.request(.ping, requestID: UInt64(attempt), timeout: .milliseconds(500))
            }
            #expect(pong == .pong(head: 0), "the peer is served again after reconnecting")
            try await fleet.waitUntilLinked("emma-tablet", timeout: .seconds(5))
            #expect(try BrokerSnapshot(fleet) == before)
            await peer.close()
        }
    }

    @Test func theAdminSocketRefusesMalformedRequestsAndChangesNothing() async throws {
        try await Fleet.with(Self.spec) { fleet in
            let admin = try LocalClient(
                endpoint: LocalEndpoints.ipc(fleet.directory + "/broker/admin.sock"), peer: "family-broker admin")
            try await admin.start()
            let before = try BrokerSnapshot(fleet)
            let requests: [(Message, ErrorCode)] = [
                (.ping, .unknownMessageType),
                (.setPasscode(childID: "emma", passcode: "1234"), .unknownMessageType),
                (.adminRequest("not json"), .invalidRequest),
                (.adminRequest("[]"), .invalidRequest),
                (.adminRequest(#"{"command":"explode"}"#), .invalidRequest),
                (.adminRequest(#"{"command":"enroll","member":"emma"}"#), .invalidRequest),
                (
                    .adminRequest(#"{"command":"enroll","member":"emma","device":"x","publicKey":"short"}"#),
                    .invalidRequest
                ),
                (.adminRequest(#"{"command":"setRole","member":"emma","role":"king"}"#), .invalidRequest),
                (.adminRequest(#"{"command":"revoke","device":"nobody"}"#), .notFound),
                (.adminRequest(#"{"command":"removeMember","member":"../alice"}"#), .notFound),
                (
                    .adminRequest(
                        #"{"command":"addMember","family":"appleseed","entry":{"id":"bad id","role":"child"}}"#),
                    .invalidRequest
                ),
            ]
            for (request, code) in requests {
                do {
                    let reply = try await admin.request(request)
                    Issue.record("\(request) was accepted: \(reply)")
                } catch let error as ErrorReply {
                    #expect(error.code == code, "\(request): \(error)")
                }
            }
            #expect(try BrokerSnapshot(fleet) == before)
            guard case .adminResult(let json) = try await admin.request(.adminRequest(#"{"command":"show"}"#)) else {
                Issue.record("show did not answer with a result")
                return
            }
            #expect(json.contains("emma-tablet"), "the admin socket still works")
            await admin.close()
        }
    }

    // MARK: helpers

    /// The name a decodable command of `type` is counted under: every broker command must be reached as one.
    static func commandKind(_ type: UInt8) -> String { "command 0x\(String(type, radix: 16))" }

    /// Settings, a contact, a passcode, an answered and a pending question: state the hostile frames must not touch.
    /// Returns the pending question's id.
    static func storeSomething(in fleet: Fleet) async throws -> UUID {
        let alice = try await RawPeer.device("alice-phone", of: fleet)
        let settings = CommunicationSettings(
            enabled: true, screenTime: .contactsOnly, downtime: .specificContacts,
            downtimeSchedule: .init(startMinute: 21 * 60, endMinute: 7 * 60), allowContactEditing: true)
        guard case .limits = try await alice.request(.setLimits(childID: "emma", settings: settings), requestID: 1)
        else {
            throw FleetError("setLimits was refused")
        }
        let grandma = Contact(handle: CommunicationHandle(value: "grandma", kind: .custom), allowedDuringDowntime: true)
        guard
            case .limits = try await alice.request(
                .editContacts(childID: "emma", add: [grandma], remove: []), requestID: 2)
        else {
            throw FleetError("editContacts was refused")
        }
        #expect(try await alice.request(.setPasscode(childID: "emma", passcode: "2468"), requestID: 3) == .ok)
        await alice.close()

        let app = fleet.app("com.example.chat", on: "emma-tablet")
        let console = try await fleet.parent(on: "alice-phone")
        func question(_ handle: String) -> PermissionQuestion<CommunicationTopic> {
            var topic = CommunicationTopic(personInformation: [
                PersonInformation(handle: CommunicationHandle(value: handle, kind: .custom))
            ])
            topic.actions = [.message]
            return PermissionQuestion(communicationTopic: topic)
        }
        let answered = question("pal")
        let pending = question("stranger")
        try await app.ask(answered)
        _ = try await console.waitForQuestion(answered.id)
        _ = try await console.approve(answered.id)
        try await app.ask(pending)
        _ = try await console.waitForQuestion(pending.id)
        await console.close()
        await app.close()
        return pending.id
    }

    /// Sends the cases in windows of 128 and checks each reply against `expected`; returns how many of each kind.
    static func exchange(_ cases: [FrameFuzzer.Case], with peer: RawPeer, role: String) async throws -> [String: Int] {
        var kinds: [String: Int] = [:]
        var nextID: UInt64 = 1000
        for start in stride(from: 0, to: cases.count, by: 128) {
            var waiting: [UInt64: (FrameFuzzer.Case, Expected)] = [:]
            var headerless: [String] = []
            for var item in cases[start..<min(start + 128, cases.count)] {
                item.stamp(nextID)
                nextID += 1
                let expectation = Self.expected(item)
                switch expectation {
                case .exactly(let reply, let kind):
                    kinds[kind, default: 0] += 1
                    if item.requestID == 0 { headerless.append("\(reply)") }
                case .command(let command):
                    kinds[Self.commandKind(command.typeCode), default: 0] += 1
                case .adultsOwn:
                    Issue.record("\(role) was given \(item.mutation), which may change its own state")
                }
                if item.requestID != 0 { waiting[item.requestID] = (item, expectation) }
                peer.send(frames: item.frames)
            }
            var headerlessReplies: [String] = []
            let deadline = ContinuousClock.now + .seconds(20)
            while (!waiting.isEmpty || headerlessReplies.count < headerless.count) && ContinuousClock.now < deadline {
                for frames in peer.take(on: 0) {
                    guard frames.count == 1, let envelope = try? MessageCodec.decode(frames[0]) else {
                        Issue.record("\(role): the broker sent an undecodable reply \(frames)")
                        continue
                    }
                    if envelope.requestID == 0 {
                        headerlessReplies.append("\(envelope.message)")
                        continue
                    }
                    guard let (item, expected) = waiting.removeValue(forKey: envelope.requestID) else {
                        Issue.record("\(role): a reply to nothing sent, or a second reply: \(envelope)")
                        continue
                    }
                    switch expected {
                    case .exactly(let reply, _):
                        #expect(envelope.message == reply, "\(role), \(item.mutation): \(item.frames)")
                    case .command(let command):
                        #expect(role == "adult", "only the adult sends decodable commands")
                        #expect(
                            adultMayGet(envelope.message, for: command),
                            "\(role), \(item.mutation): \(command) got \(envelope.message)")
                    case .adultsOwn:
                        break
                    }
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(
                waiting.isEmpty,
                "\(role): no reply to \(waiting.values.map(\.0.mutation).prefix(10)) (\(waiting.count) in all)")
            #expect(
                headerlessReplies.sorted() == headerless.sorted(), "\(role): replies to frames with no whole header")
        }
        return kinds
    }
}
