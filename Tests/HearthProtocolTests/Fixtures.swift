import Foundation
import HearthCore
import HearthProtocol

/// Sample values covering every message, with every optional field both set and unset.
enum Fixtures {
    static let id1 = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!
    static let id2 = UUID(uuidString: "6A1E5A00-0000-4000-8000-000000000002")!
    /// Whole milliseconds, the wire's resolution, so dates survive the round trip exactly.
    static let t0 = Date(timeIntervalSince1970: 1_750_000_000.123)
    static let t1 = Date(timeIntervalSince1970: 1_750_000_100)
    static let beforeEpoch = Date(timeIntervalSince1970: -86_400.5)

    static let dragon = CommunicationHandle(value: "dragonslayer42", kind: .custom)
    static let phone = CommunicationHandle(value: "+44 20 7946 0958", kind: .phoneNumber)
    static let email = CommunicationHandle(value: "zoë@exämple.org", kind: .emailAddress)
    static let emojiHandle = CommunicationHandle(value: "🐉🔥_李小龙", kind: .custom)

    static var fullName: PersonNameComponents {
        var name = PersonNameComponents()
        name.givenName = "Zoë"
        name.middleName = "Ангелина"
        name.familyName = "李"
        name.nickname = "🐉 Dragon"
        return name
    }

    static var partialName: PersonNameComponents {
        var name = PersonNameComponents()
        name.givenName = "Amélie"
        return name
    }

    /// Every optional field set: names, avatar, actions, custom choices, a non-default default, an expiration, a note.
    static let fullQuestion = Question(
        id: id1,
        topic: .communication(
            CommunicationTopic(
                personInformation: [
                    PersonInformation(handle: dragon, nameComponents: fullName, avatarImage: Array(0..<64)),
                    PersonInformation(handle: email, nameComponents: partialName, avatarImage: []),
                    PersonInformation(handle: phone),
                ],
                actions: Set(CommunicationTopic.Action.allCases)
            )),
        choices: [
            .approve, .decline,
            PermissionChoice(id: "once", title: "Einmal erlauben ✅", answer: .approval),
        ],
        defaultChoiceID: "once",
        expirationDate: t1,
        note: "Zoë is in my class 🐉\nwe do homework together"
    )

    /// Every optional field unset.
    static let minimalQuestion = Question(
        id: id2, topic: .communication(CommunicationTopic(personInformation: [PersonInformation(handle: emojiHandle)]))
    )

    static let updateQuestion = Question(
        id: id2, topic: .significantAppUpdate(description: "Adds voice chat — 音声チャット"), expirationDate: beforeEpoch
    )

    static let askedFull = AskedQuestion(
        question: fullQuestion, childMemberID: "kid-1", appBundleID: "com.example.chat", askingDeviceID: "kid-1.tablet",
        askedAt: t0
    )
    static let askedMinimal = AskedQuestion(
        question: minimalQuestion, childMemberID: "kid_2", appBundleID: "x", askingDeviceID: "D", askedAt: beforeEpoch
    )
    static let askedUpdate = AskedQuestion(
        question: updateQuestion, childMemberID: "kid-1", appBundleID: "com.example.game", askingDeviceID: "phone-9",
        askedAt: t1
    )

    static let answered = Resolution(
        questionID: id1, choice: .approve, reason: .parentAnswered, answeredBy: "mum", resolvedAt: t1,
        message: "Ja — aber nicht nach 20 Uhr 🌙")
    static let defaulted = Resolution(
        questionID: id2, choice: .decline, reason: .defaultLimitsOff, answeredBy: nil, resolvedAt: t0)

    static let events: [Event] = [
        Event(memberID: "kid-1", sequence: 1, createdAt: t0, body: .questionPending(askedFull)),
        Event(memberID: "kid-1", sequence: 2, createdAt: t1, body: .questionResolved(askedFull, answered)),
        Event(
            memberID: "kid-1", sequence: 3, createdAt: t1,
            body: .handlesChanged(added: [dragon, emojiHandle], removed: [phone])),
        Event(memberID: "mum", sequence: .max, createdAt: beforeEpoch, body: .handlesChanged(added: [], removed: [])),
        Event(memberID: "kid_2", sequence: 0, createdAt: t0, body: .questionResolved(askedMinimal, defaulted)),
        Event(memberID: "mum", sequence: 4, createdAt: t1, body: .questionReminder(askedFull)),
    ]

    static let teenSettings = CommunicationSettings(
        enabled: true, screenTime: .contactsAndGroups, downtime: .specificContacts,
        downtimeSchedule: CommunicationSettings.Downtime(startMinute: 22 * 60, endMinute: 7 * 60),
        allowContactEditing: true)

    /// At least one message of every case, most with several variants.
    /// parent-device's notification messages (docs/PROTOCOL.md §6.5).
    /// A cluster's redirect (docs/PROTOCOL.md §6.2, 0x89).
    static let clusterMessages: [Message] = [
        .redirect(
            BrokerRedirect(
                partition: 0, epoch: 1, ingress: "tcp://127.0.0.1:7711", egress: "tcp://127.0.0.1:7712",
                publicKey: "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7")),
        .redirect(
            BrokerRedirect(
                partition: .max, epoch: .max, ingress: "ipc:///run/hearth/broker-2.sock",
                egress: "ipc:///run/hearth/broker-2-events.sock", publicKey: "JTKVSB%%)wK0E.X)V>+}o?pNmC{O&4W4b!Ni{Lh6")
        ),
    ]

    static let parentMessages: [Message] = [
        .parentWatch(after: nil),
        .parentWatch(after: .max),
        .parentWatching(head: 0),
        .parentNotification(
            ParentNotification(
                id: 1, kind: .questionExpired, createdAt: Date(timeIntervalSince1970: 1_700_000_000),
                childMemberID: "emma", questionID: id1, appBundleID: "com.example.chat", answeredBy: nil,
                choiceID: "decline", text: "expired unanswered, so \"Decline\" for emma: to talk to custom:ß✓")),
        .parentNotification(
            ParentNotification(
                id: 2, kind: .updateAcknowledged, createdAt: Date(timeIntervalSince1970: 1_700_000_000),
                childMemberID: "emma", questionID: nil, appBundleID: "com.example.chat", answeredBy: nil,
                choiceID: nil, text: "emma acknowledged a significant update of com.example.chat — \"Adds calls\"")),
    ]

    static let messages: [Message] = {
        var all: [Message] = [
            .hello(minVersion: 1, maxVersion: 1),
            .hello(minVersion: 0, maxVersion: 255),
            .sync(after: 0, limit: 1000),
            .sync(after: .max, limit: .max),
            .ask(appBundleID: "com.example.chat", question: fullQuestion),
            .ask(appBundleID: "", question: minimalQuestion),
            .ask(appBundleID: "com.example.game", question: updateQuestion),
            .answer(questionID: id1, choiceID: "approve"),
            .answer(questionID: id2, choiceID: ""),
            .answer(questionID: id2, choiceID: "decline", message: "not this one\nsorry ✓"),
            .knownHandles([]),
            .knownHandles([dragon, phone, email, emojiHandle]),
            .ping,
            .welcome(version: 1, familyID: nil, memberID: "kid-1", deviceID: "kid-1.tablet", role: .child, head: 0),
            .welcome(
                version: 1, familyID: "the-smiths", memberID: "mum", deviceID: "mum.phone", role: .organizer, head: .max
            ),
            .events(head: 0, events: []),
            .events(head: 42, events: events),
            .askAccepted(askedFull, nil),
            .askAccepted(askedMinimal, defaulted),
            .answerAccepted(answered),
            .answerAccepted(defaulted),
            .knownHandlesResult([]),
            .knownHandlesResult([email]),
            .pong(head: 7),
            .error(ErrorReply(.invalidQuestion, "default choice \"maybe\" is not among the choices")),
            .error(ErrorReply(.unknown, "")),
            .error(ErrorReply(.brokerUnavailable, "Brücke nicht verfügbar — 🔌")),
            .heartbeat(head: 12_345),
            .appHello(bundleID: "com.example.chat"),
            .appWelcome(memberID: nil, brokerConnected: false),
            .appWelcome(memberID: "kid-1", brokerConnected: true),
            .appResponse(inboxID: 9, askedFull, answered),
            .appResponse(inboxID: .max, askedUpdate, defaulted),
            .appAck(inboxID: 9),
            .ok,
            .listPending,
            .pendingList([]),
            .pendingList([askedFull, askedMinimal, askedUpdate]),
            .setLimits(childID: "kid-1", settings: CommunicationSettings()),
            .setLimits(childID: "kid-1", settings: teenSettings),
            .getLimits(childID: "kid-1"),
            .editContacts(childID: "kid-1", add: [], remove: []),
            .editContacts(
                childID: "kid-1", add: [Contact(handle: phone, allowedDuringDowntime: true), Contact(handle: dragon)],
                remove: [email]),
            .revokeApproval(childID: "kid-1", handles: [dragon]),
            .setPasscode(childID: "kid-1", passcode: "1234"),
            .setPasscode(childID: "kid-1", passcode: ""),
            .approveInPerson(questionID: id1, passcode: "1234"),
            .declineInPerson(questionID: id1, passcode: "1234"),
            .withdraw(questionID: id2),
            .limits(
                childID: "kid-1", settings: teenSettings,
                contacts: [Contact(handle: emojiHandle, allowedDuringDowntime: true)]),
            .limits(childID: "kid-1", settings: CommunicationSettings(enabled: false), contacts: []),
            .handlesRevoked([]),
            .handlesRevoked([dragon, phone]),
            .adminRequest(#"{"command":"show"}"#),
            .adminResult(#"{"summary":"revoked emma-tablet of emma"}"#),
        ]
        for role in MemberRole.allCases {
            all.append(.welcome(version: 1, familyID: "f", memberID: "m", deviceID: "d", role: role, head: 1))
        }
        for event in events { all.append(.event(event)) }
        for code in ErrorCode.allCases { all.append(.error(ErrorReply(code, "code \(code)"))) }
        for reason in Resolution.Reason.allCases {
            all.append(
                .answerAccepted(
                    Resolution(questionID: id1, choice: .decline, reason: reason, answeredBy: nil, resolvedAt: t0)))
        }
        // Last, so that the fuzz corpus's earlier seeds (numbered by position) stay as they are.
        return all + ageMessages + parentMessages + clusterMessages + approvalMessages + historyMessages
            + batchMessages
    }()

    /// Event batches (0x92): one event, a child's answer (resolution and new handles), and the last sequence number.
    static let batchMessages: [Message] = [
        .eventBatch([events[0]]),
        .eventBatch(Array(events[0...2])),
        .eventBatch([
            Event(memberID: "mum", sequence: .max - 1, createdAt: t1, body: .questionReminder(askedFull)), events[3],
        ]),
    ]

    /// A child's history (0x0F, 0x8B, event kind 6, notification kind 7): every optional field set and unset.
    static let historyMessages: [Message] = {
        let answered = HistoryEntry(
            id: 7, childMemberID: "kid-1", recordedAt: t1, kind: .answered, actor: "mum", deviceID: "mum.phone",
            questionID: id1, appBundleID: "com.example.chat", choice: .decline, message: "Not yet, Zoë 🐉\nask again",
            handles: [dragon, emojiHandle], summary: "mum chose \"Decline\" for kid-1: to talk to custom:dragonslayer42"
        )
        let limits = HistoryEntry(
            id: .max, childMemberID: "kid_2", recordedAt: beforeEpoch, kind: .limitsChanged,
            summary: "dad changed kid_2's limits: Screen Time contactsOnly → everyone")
        return [
            .history(HistoryQuery(childID: "kid-1")),
            .history(HistoryQuery(childID: "kid-1", cursor: .max, limit: 0, newestFirst: true, since: t0)),
            .historyPage(childID: "kid-1", entries: [], next: nil),
            .historyPage(childID: "kid-1", entries: [answered, limits], next: 7),
            .event(Event(memberID: "mum", sequence: 9, createdAt: t1, body: .historyRecorded(limits))),
            .parentNotification(
                ParentNotification(
                    id: 2, kind: .settingsChanged, createdAt: t1, childMemberID: "kid-1", questionID: nil,
                    appBundleID: nil, answeredBy: "dad", choiceID: nil, text: limits.summary)),
        ]
            + HistoryEntry.Kind.allCases.map { kind in
                var entry = answered
                entry.kind = kind
                return .historyPage(childID: "kid-1", entries: [entry], next: nil)
            }
    }()

    /// A parent's list of approved handles (0x0E, 0x8A).
    static let approvalMessages: [Message] = {
        [
            .listApproved(childID: "kid-1"),
            .approvedList(childID: "kid-1", approvals: [], complete: true),
            .approvedList(
                childID: "kid-1",
                approvals: [
                    Approval(handle: dragon, questionID: id1, approvedBy: "mum", approvedAt: t1, inPerson: false),
                    Approval(handle: emojiHandle, questionID: id2, approvedBy: nil, approvedAt: t0, inPerson: true),
                    Approval(handle: phone, questionID: nil, approvedBy: nil, approvedAt: nil, inPerson: false),
                ], complete: false),
        ]
    }()

    /// Every type code protocol v1 defines.
    static let typeCodes: Set<UInt8> = Set<UInt8>([
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0xFF, 0x90, 0x91,
        0x92, 0x20, 0xA0, 0xA2, 0x24, 0xA3, 0x30, 0xB0, 0x31, 0xB1, 0xB2,
        0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x87, 0x88, 0x89, 0x8A, 0x8B, 0x50, 0xD0,
    ]).union(ageTypeCodes)

    /// A frame with a valid header for `type` and a body written by `body`.
    static func frame(
        type: UInt8, requestID: UInt64 = 1, version: UInt8 = Wire.version, _ body: (inout WireWriter) -> Void = { _ in }
    ) -> [UInt8] {
        var w = WireWriter()
        w.u8(version)
        w.u8(type)
        w.u64(requestID)
        body(&w)
        return w.bytes
    }

    /// Raw string bytes with a length prefix, for strings `WireWriter.string` would not write (invalid UTF-8).
    static func rawString(_ w: inout WireWriter, _ bytes: [UInt8]) {
        w.blob(bytes)
    }
}
