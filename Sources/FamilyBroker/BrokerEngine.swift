import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Logging

/// Applies devices' commands: authorization, Family Sharing and Communication Limits policy, storage and events.
///
/// A batch of commands runs in one SQLite transaction (group commit), each command in a savepoint so that one
/// failure changes nothing and does not undo its neighbours. Replies and events leave only after the commit.
public final class BrokerEngine: Sendable {
    /// One command as read from the ingress socket.
    public struct Command: Sendable {
        public var routingID: [UInt8]
        /// The CURVE-authenticated device (ZAP `User-Id`); nil if the connection carried none.
        public var deviceID: DeviceID?
        public var frame: [UInt8]

        public init(routingID: [UInt8], deviceID: DeviceID?, frame: [UInt8]) {
            self.routingID = routingID
            self.deviceID = deviceID
            self.frame = frame
        }
    }

    /// What a batch produced, to send once it is committed.
    public struct Output: Sendable {
        public var replies: [(routingID: [UInt8], frame: [UInt8])] = []
        public var events: [Event] = []
    }

    public let store: BrokerStore
    public let directory: DirectoryBox
    public let sequences: SequenceBook
    public let ageRange: AgeRangePolicy
    private let clock: @Sendable () -> Date
    private let logger: Logger

    public init(
        store: BrokerStore, directory: DirectoryBox, sequences: SequenceBook, logger: Logger, ageRange: AgeRangePolicy = AgeRangePolicy(),
        clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.ageRange = ageRange
        self.directory = directory
        self.sequences = sequences
        self.logger = logger
        self.clock = clock
    }

    /// Runs a batch and returns the replies and events to send; nothing is returned that was not committed.
    public func process(_ commands: [Command]) async -> Output {
        let directory = self.directory.current
        let heads = sequences.snapshot()
        let now = clock()
        let logger = self.logger
        let ageRange = self.ageRange
        do {
            let (output, changed) = try await store.write { db in
                var tx = Transaction(directory: directory, heads: heads, now: now, logger: logger)
                tx.ageRange = ageRange
                tx.maintainAgeRanges(in: db)
                var output = Output()
                for command in commands {
                    let requestID = MessageCodec.peekRequestID(command.frame)
                    let saved = tx
                    var reply: Message
                    do {
                        try db.execute(sql: "SAVEPOINT command")
                        do {
                            reply = try tx.handle(command, in: db)
                            try db.execute(sql: "RELEASE SAVEPOINT command")
                        } catch {
                            try db.execute(sql: "ROLLBACK TO SAVEPOINT command")
                            try db.execute(sql: "RELEASE SAVEPOINT command")
                            throw error
                        }
                    } catch let error as ErrorReply {
                        tx = saved
                        reply = .error(error)
                    } catch let error as WireError {
                        tx = saved
                        reply = .error(ErrorReply(error.code, error.description))
                    } catch {
                        tx = saved
                        logger.error("command failed", metadata: ["device": "\(command.deviceID ?? "-")", "error": "\(error)"])
                        reply = .error(ErrorReply(.internalError, "the broker could not store this command; nothing was changed"))
                    }
                    output.replies.append((command.routingID, MessageCodec.encode(reply, requestID: requestID)))
                }
                output.events = tx.events
                return (output, tx.changedHeads)
            }
            sequences.update(changed)
            return output
        } catch {
            // The commit itself failed: nothing is stored, so every command gets an error and no event leaves.
            logger.error("batch commit failed", metadata: ["error": "\(error)", "commands": "\(commands.count)"])
            var output = Output()
            for command in commands {
                let reply = Message.error(ErrorReply(.internalError, "the broker could not commit; retry"))
                output.replies.append((command.routingID, MessageCodec.encode(reply, requestID: MessageCodec.peekRequestID(command.frame))))
            }
            return output
        }
    }
}

/// The state of one batch's transaction: staged heads and events, restored when a command's savepoint rolls back.
struct Transaction {
    let directory: Directory
    var heads: [MemberID: UInt64]
    var changedHeads: [MemberID: UInt64] = [:]
    var events: [Event] = []
    let now: Date
    let logger: Logger
    var ageRange = AgeRangePolicy()

    init(directory: Directory, heads: [MemberID: UInt64], now: Date, logger: Logger) {
        self.directory = directory
        self.heads = heads
        self.now = now
        self.logger = logger
    }

    mutating func handle(_ command: BrokerEngine.Command, in db: Database) throws -> Message {
        let envelope = try MessageCodec.decode(command.frame)
        guard let deviceID = command.deviceID, let device = directory.devices[deviceID],
              let member = directory.members[device.memberID]
        else {
            throw ErrorReply(.notAuthorized, "this connection's key is not enrolled")
        }
        switch envelope.message {
        case .hello(let minVersion, let maxVersion):
            guard minVersion <= Wire.version, Wire.version <= maxVersion else {
                throw ErrorReply(.unsupportedVersion, "the broker speaks protocol \(Wire.minimumVersion)...\(Wire.version); the device asked for \(minVersion)...\(maxVersion)")
            }
            return .welcome(
                version: Wire.version, familyID: member.familyID, memberID: member.id, deviceID: deviceID, role: member.role,
                head: heads[member.id] ?? 0)
        case .ping:
            return .pong(head: heads[member.id] ?? 0)
        case .sync(let after, let limit):
            let count = Int(min(max(limit, 1), Wire.maxEventsPerSync))
            return .events(head: heads[member.id] ?? 0, events: try BrokerStore.events(of: member.id, after: after, limit: count, in: db))
        case .knownHandles(let handles):
            guard member.role == .child else {
                throw ErrorReply(.notAvailable, "known handles are kept for children; \(member.id) is \(member.role.name)")
            }
            return .knownHandlesResult(try BrokerStore.knownHandles(of: member.id, among: handles, in: db))
        case .ask(let app, let question):
            return try ask(question, app: app, child: member, device: deviceID, in: db)
        case .answer(let questionID, let choiceID):
            return try answer(questionID, choiceID: choiceID, parent: member, in: db)
        case .ageRange(let message):
            return try handleAgeRange(message, member: member, in: db)
        default:
            throw ErrorReply(.unknownMessageType, "message type 0x\(String(envelope.message.typeCode, radix: 16)) is not a broker command")
        }
    }

    // MARK: ask

    private mutating func ask(_ question: Question, app: BundleID, child: Directory.Member, device: DeviceID, in db: Database) throws -> Message {
        guard child.role == .child else {
            throw ErrorReply(.notAvailable, "only a child asks; \(child.id) is \(child.role.name)")
        }
        guard Identifier.isValidBundleID(app) else { throw ErrorReply(.invalidQuestion, "appBundleID '\(app)' is not a bundle id") }
        if let existing = try BrokerStore.question(question.id, in: db) {
            // A retry of the same ask (after a crash or a lost reply) has one effect: the first, even once expired.
            guard existing.asked.childMemberID == child.id else {
                throw ErrorReply(.invalidQuestion, "question id \(question.id) is already used")
            }
            return .askAccepted(existing.asked, existing.resolution)
        }
        try validate(question)
        let asked = AskedQuestion(question: question, childMemberID: child.id, appBundleID: app, askingDeviceID: device, askedAt: now)

        if let reason = defaultReason(for: child) {
            return try resolveAtOnce(asked, choice: question.defaultChoice!, reason: reason, in: db)
        }
        let handles = question.handles
        if !handles.isEmpty, Set(try BrokerStore.knownHandles(of: child.id, among: handles, in: db)) == Set(handles) {
            let approval = question.choices.first { $0.answer == .approval }!
            return try resolveAtOnce(asked, choice: approval, reason: .alreadyKnown, in: db)
        }
        if !handles.isEmpty,
           let pending = try BrokerStore.pendingQuestion(child: child.id, app: app, handlesKey: BrokerStore.handlesKey(handles), now: now, in: db) {
            // Parents are not asked twice about the same people by the same app: the app gets the pending question.
            return .askAccepted(pending.asked, nil)
        }
        try BrokerStore.insert(asked, resolution: nil, in: db)
        try publish(.questionPending(asked), to: child.id, in: db)
        for parent in directory.parents(of: child.familyID) {
            try publish(.questionPending(asked), to: parent, in: db)
        }
        return .askAccepted(asked, nil)
    }

    private func validate(_ question: Question) throws {
        func invalid(_ reason: String) -> ErrorReply { ErrorReply(.invalidQuestion, reason) }
        switch question.topic {
        case .communication(let topic):
            guard !topic.personInformation.isEmpty else { throw invalid("a communication question names at least one person") }
        case .significantAppUpdate(let description):
            guard !description.isEmpty else { throw invalid("a significant app update question needs a description") }
        }
        let ids = question.choices.map(\.id)
        guard Set(ids).count == ids.count else { throw invalid("choice ids must be unique") }
        guard question.choices.contains(where: { $0.answer == .approval }),
              question.choices.contains(where: { $0.answer == .denial })
        else { throw invalid("choices must include at least one approval and one denial") }
        guard question.defaultChoice != nil else { throw invalid("defaultChoiceID '\(question.defaultChoiceID)' is not one of the choices") }
        if let expiration = question.expirationDate, expiration <= now {
            throw invalid("expirationDate is in the past")
        }
    }

    private func defaultReason(for child: Directory.Member) -> Resolution.Reason? {
        if child.familyID == nil { return .defaultNoFamily }
        if !child.limitsEnabled { return .defaultLimitsOff }
        return nil
    }

    private mutating func resolveAtOnce(_ asked: AskedQuestion, choice: PermissionChoice, reason: Resolution.Reason, in db: Database) throws -> Message {
        let resolution = Resolution(questionID: asked.question.id, choice: choice, reason: reason, answeredBy: nil, resolvedAt: now)
        try BrokerStore.insert(asked, resolution: resolution, in: db)
        // Through the child's log, so every device of the child hands the app its response, as for a parent's answer.
        try publish(.questionResolved(asked, resolution), to: asked.childMemberID, in: db)
        return .askAccepted(asked, resolution)
    }

    // MARK: answer

    private mutating func answer(_ questionID: UUID, choiceID: String, parent: Directory.Member, in db: Database) throws -> Message {
        guard parent.role.isParent else {
            throw ErrorReply(.notAuthorized, "only an organizer or guardian answers; \(parent.id) is \(parent.role.name)")
        }
        guard let stored = try BrokerStore.question(questionID, in: db) else {
            throw ErrorReply(.notFound, "no question \(questionID)")
        }
        let asked = stored.asked
        guard let child = directory.members[asked.childMemberID], child.familyID != nil, child.familyID == parent.familyID else {
            // Same reply as for a missing question, so a parent of another family learns nothing about it.
            throw ErrorReply(.notFound, "no question \(questionID)")
        }
        if let resolution = stored.resolution {
            if resolution.answeredBy == parent.id, resolution.choice.id == choiceID {
                return .answerAccepted(resolution)  // the same parent retrying: one effect
            }
            let by = resolution.answeredBy.map { "by \($0)" } ?? "(\(resolution.reason))"
            throw ErrorReply(.alreadyAnswered, "question \(questionID) was already answered \(by): \(resolution.choice.id)")
        }
        if let expiration = asked.question.expirationDate, expiration <= now {
            throw ErrorReply(.expired, "question \(questionID) expired at \(expiration)")
        }
        guard let choice = asked.question.choices.first(where: { $0.id == choiceID }) else {
            throw ErrorReply(.invalidChoice, "'\(choiceID)' is not a choice of question \(questionID); choices: \(asked.question.choices.map(\.id).joined(separator: ", "))")
        }
        let resolution = Resolution(questionID: questionID, choice: choice, reason: .parentAnswered, answeredBy: parent.id, resolvedAt: now)
        try BrokerStore.resolve(questionID, with: resolution, in: db)
        try publish(.questionResolved(asked, resolution), to: child.id, in: db)
        if choice.answer == .approval {
            let added = try BrokerStore.addKnownHandles(asked.question.handles, child: child.id, question: questionID, in: db)
            if !added.isEmpty { try publish(.handlesChanged(added: added, removed: []), to: child.id, in: db) }
        }
        for other in directory.parents(of: child.familyID) {
            try publish(.questionResolved(asked, resolution), to: other, in: db)
        }
        return .answerAccepted(resolution)
    }

    // MARK: events

    mutating func publish(_ body: Event.Body, to member: MemberID, in db: Database) throws {
        let sequence = (heads[member] ?? 0) + 1
        let event = Event(memberID: member, sequence: sequence, createdAt: now, body: body)
        try BrokerStore.appendEvent(event, in: db)
        heads[member] = sequence
        changedHeads[member] = sequence
        events.append(event)
    }
}
