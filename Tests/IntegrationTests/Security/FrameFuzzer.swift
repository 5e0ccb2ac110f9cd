import Foundation
import HearthCore
import HearthProtocol

/// Hostile input for the broker's ingress, reproducible from a seed: valid frames of every message type mutated the
/// ways a broken or malicious peer would, and crafted frames that each break one decoding rule.
struct FrameFuzzer {
    /// One message to send: its ZeroMQ frames (one, unless the frame count is what is wrong) and what was done to it.
    struct Case: Sendable {
        var frames: [[UInt8]]
        var mutation: String

        /// Writes `id` into the request id of the last frame when its header is whole, so the reply can be matched.
        mutating func stamp(_ id: UInt64) {
            guard let last = frames.indices.last, frames[last].count >= Wire.headerSize else { return }
            for i in 0..<8 { frames[last][2 + i] = UInt8(truncatingIfNeeded: id >> (56 - 8 * UInt64(i))) }
        }

        /// The request id the broker echoes: the last frame's, or 0 when its header is cut short.
        var requestID: UInt64 { MessageCodec.peekRequestID(frames.last ?? []) }
    }

    private var state: UInt64
    /// Valid frames of every message type, the broker's commands among them, naming the fleet's real ids.
    let corpus: [[UInt8]]

    init(seed: UInt64, child: MemberID, questionID: UUID) {
        state = seed
        corpus = Self.messages(child: child, questionID: questionID).map { MessageCodec.encode($0, requestID: 1) }
    }

    /// A mutated frame: one to three changes to a valid one, or a wrong frame count, or random bytes.
    mutating func next() -> Case {
        var frame = corpus[below(corpus.count)]
        switch below(16) {
        case 0:
            frame[0] = pick([0, 2, 3, 0x7F, 0xFF] as [UInt8])
            return Case(frames: [frame], mutation: "version")
        case 1:
            frame[1] = UInt8(truncatingIfNeeded: random())
            return Case(frames: [frame], mutation: "type")
        case 2:
            return Case(frames: [Array(frame.prefix(below(frame.count)))], mutation: "truncated")
        case 3:
            // A DEALER cannot send zero frames; an empty first part is what a REQ socket would add.
            var frames: [[UInt8]] = []
            for _ in 0..<(1 + below(4)) { frames.append(below(3) == 0 ? [] : randomBytes(below(24))) }
            frames.append(frame)
            if below(2) == 0 { frames.reverse() }
            return Case(frames: frames, mutation: "frame count")
        case 4:
            return Case(frames: [randomBytes(below(64))], mutation: "random bytes")
        default:
            var names: [String] = []
            for _ in 0..<(1 + below(3)) { names.append(mutate(&frame)) }
            return Case(frames: [frame], mutation: names.joined(separator: "+"))
        }
    }

    /// One change to a frame's body (the header is left whole so the reply can be matched).
    private mutating func mutate(_ frame: inout [UInt8]) -> String {
        guard frame.count > Wire.headerSize else {
            frame.append(UInt8(truncatingIfNeeded: random()))
            return "appended"
        }
        let at = Wire.headerSize + below(frame.count - Wire.headerSize)
        switch below(9) {
        case 0:
            frame[at] ^= 1 << UInt8(below(8))
            return "bit flip"
        case 1:
            frame[at] = UInt8(truncatingIfNeeded: random())
            return "byte"
        case 2:
            frame.insert(UInt8(truncatingIfNeeded: random()), at: at)
            return "inserted"
        case 3:
            frame.remove(at: at)
            return "deleted"
        case 4:
            frame = Array(frame.prefix(at))
            return "cut"
        case 5:
            // A length or count field blown up.
            for i in at..<min(at + 4, frame.count) { frame[i] = 0xFF }
            return "huge length"
        case 6:
            let invalid: [UInt8] = pick([[0xC3, 0x28], [0xFF, 0xFE], [0xED, 0xA0, 0x80], [0xC0, 0x80]])
            for (i, byte) in invalid.enumerated() where at + i < frame.count {
                frame[at + i] = byte
            }
            return "invalid UTF-8"
        case 7:
            // Enum, bool and presence bytes are single bytes: values just past the defined ones.
            frame[at] = pick([0, 2, 4, 5, 9, 11, 99, 0xFF] as [UInt8])
            return "enum value"
        default:
            let chunk = frame[at..<min(at + 1 + below(16), frame.count)]
            frame.insert(contentsOf: chunk, at: at)
            return "repeated"
        }
    }

    /// A valid message of every type protocol v1 defines, naming the fleet's child and one of its questions.
    static func messages(child: MemberID, questionID: UUID) -> [Message] {
        let pal = CommunicationHandle(value: "pal", kind: .custom)
        let phone = CommunicationHandle(value: "+1 555 0100", kind: .phoneNumber)
        var topic = CommunicationTopic(personInformation: [PersonInformation(handle: pal)])
        topic.actions = [.message, .call]
        let question = Question(id: questionID, topic: .communication(topic))
        let asked = AskedQuestion(
            question: question, childMemberID: child, appBundleID: "com.example.chat", askingDeviceID: "d",
            askedAt: Date(timeIntervalSince1970: 1))
        let resolution = Resolution(
            questionID: questionID, choice: .approve, reason: .parentAnswered, answeredBy: "p",
            resolvedAt: Date(timeIntervalSince1970: 2))
        let settings = CommunicationSettings(
            enabled: true, screenTime: .contactsAndGroups, downtime: .specificContacts,
            downtimeSchedule: .init(startMinute: 1320, endMinute: 420), allowContactEditing: true)
        let contacts = [Contact(handle: pal, allowedDuringDowntime: true), Contact(handle: phone)]
        return [
            .hello(minVersion: 1, maxVersion: 1),
            .sync(after: 0, limit: 1000),
            .ask(appBundleID: "com.example.chat", question: question),
            .ask(
                appBundleID: "com.example.chat",
                question: Question(topic: .significantAppUpdate(description: "voice chat"))),
            .answer(questionID: questionID, choiceID: "approve"),
            .knownHandles([pal, phone]),
            .ping,
            .setLimits(childID: child, settings: settings),
            .getLimits(childID: child),
            .editContacts(
                childID: child, add: contacts, remove: [CommunicationHandle(value: "old", kind: .emailAddress)]),
            .revokeApproval(childID: child, handles: [pal]),
            .setPasscode(childID: child, passcode: "1357"),
            .approveInPerson(questionID: questionID, passcode: "2468"),
            .declineInPerson(questionID: questionID, passcode: "2468"),
            .withdraw(questionID: questionID),
            .listApproved(childID: child),
            .history(HistoryQuery(childID: child, cursor: 1, limit: 5, newestFirst: true, since: Date())),
            .historyPage(
                childID: child,
                entries: [
                    HistoryEntry(
                        id: 1, childMemberID: child, recordedAt: Date(timeIntervalSince1970: 5), kind: .answered,
                        actor: "p", deviceID: "d", questionID: questionID, appBundleID: "com.example.chat",
                        choice: .approve, message: "ok", handles: [pal], summary: "p chose Approve")
                ], next: 1),
            .welcome(version: 1, familyID: "f", memberID: child, deviceID: "d", role: .child, head: 3),
            .events(
                head: 1,
                events: [
                    Event(
                        memberID: child, sequence: 1, createdAt: Date(timeIntervalSince1970: 3),
                        body: .questionPending(asked))
                ]),
            .askAccepted(asked, resolution),
            .answerAccepted(resolution),
            .knownHandlesResult([pal]),
            .pong(head: 9),
            .limits(childID: child, settings: settings, contacts: contacts),
            .handlesRevoked([pal]),
            .error(ErrorReply(.lockedOut, "locked")),
            .event(
                Event(
                    memberID: child, sequence: 2, createdAt: Date(timeIntervalSince1970: 4),
                    body: .handlesChanged(added: [pal], removed: []))),
            .heartbeat(head: 2),
            .appHello(bundleID: "com.example.chat"),
            .appWelcome(memberID: child, brokerConnected: true),
            .appResponse(inboxID: 1, asked, resolution),
            .appAck(inboxID: 1),
            .ok,
            .listPending,
            .pendingList([asked]),
            .adminRequest(#"{"command":"revoke","device":"d"}"#),
            .adminResult(#"{"summary":"x","disconnectedDevices":[]}"#),
        ] + ageRangeMessages(child: child, promptID: questionID).map(Message.ageRange)
    }

    /// A valid Declared Age Range message of every type, the broker's commands (0x40-0x43) among them.
    static func ageRangeMessages(child: MemberID, promptID: UUID) -> [AgeRangeMessage] {
        let range = DeclaredRange(
            lowerBound: 9, upperBound: 12, declaration: .guardianDeclared, parentalControls: .communicationLimits)
        let prompt = AgePrompt(
            id: promptID, memberID: child, app: "com.example.chat", gates: [9, 13], range: range,
            createdAt: Date(timeIntervalSince1970: 5), expiresAt: Date(timeIntervalSince1970: 65))
        return [
            .request(app: "com.example.chat", gates: [13, 16]),
            .request(app: "com.example.chat", gates: []),
            .setSharing(member: child, .always),
            .setSharing(member: "alice", .never),
            .answerPrompt(id: promptID, share: true),
            .answerPrompt(id: UUID(uuidString: "00000000-0000-4000-8000-0000000000A9")!, share: false),
            .clearCache(app: "com.example.chat"),
            .watch(app: "com.example.chat"),
            .listPrompts,
            .requestRegulatoryFeatures,
            .acknowledgeUpdate(app: "com.example.chat", description: "Group chats with up to 8 friends"),
            .result(app: "com.example.chat", .sharing(range)),
            .prompted(id: promptID, app: "com.example.chat", timeoutMilliseconds: 60_000),
            .sharingSet(member: child, .askFirst),
            .promptAnswered(id: promptID, .declined(.userDeclined)),
            .cacheCleared(app: "com.example.chat", existed: true),
            .promptList([prompt]),
            .update(app: "com.example.chat", promptID: promptID, .declined(.promptTimedOut)),
            .regulatoryFeatures([.declaredAgeRangeRequired, .significantAppChangeRequiresParentalConsent]),
        ]
    }

    // MARK: randomness (SplitMix64: the same seed gives the same frames on every machine)

    private mutating func random() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(random() % UInt64(n)) }

    private mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }

    private mutating func randomBytes(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0..<count { bytes.append(UInt8(truncatingIfNeeded: random())) }
        return bytes
    }
}
