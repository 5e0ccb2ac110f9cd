import Foundation
import HearthCore
import HearthProtocol
import Logging

/// The state of one write transaction: the store inside it, staged heads, events and directory, restored when a
/// command's savepoint rolls back. It speaks the domain: typed commands in, typed outcomes out, no SQL.
///
/// Committed heads are only read and staged ones live in `changedHeads`; a rollback truncates what the command
/// appended and undoes its head changes from a log. So no command copies state that grows with the batch (events)
/// or with the directory (heads), which made a batch's cost quadratic.
struct Transaction {
    /// The store, inside this transaction.
    let store: any StorageWriter
    var directory: Directory
    var directoryChanged = false
    /// Heads as committed before this transaction.
    let committedHeads: [MemberID: UInt64]
    var changedHeads: [MemberID: UInt64] = [:]
    /// Each staged head change with the value it replaced, for rolling a command back.
    private var headUndo: [(member: MemberID, previous: UInt64?)] = []
    var events: [Event] = []
    /// The frame publishing each of `events`, in the same order.
    var eventFrames: [[UInt8]] = []
    var disconnectedDevices: [DeviceID] = []
    /// Passcode hashing done before the transaction, by command index (`PasscodeWork`).
    var secrets: [Int: PasscodeWork.Prepared] = [:]
    var commandIndex = 0
    /// The device whose command runs now (`handle`): what the history records a change came from; nil in sweeps
    /// and admin commands.
    var commandDevice: DeviceID?
    /// Set when a command's write was refused by the store (a full disk, a lost server): the whole transaction is
    /// gone, so it must not commit what the other commands did (`BrokerEngine` throws it after the work).
    var storeFailure: StoreUnavailable?
    /// Whether commands run without savepoints (`StorageWriter.unguarded`), as a batch of devices' commands does
    /// first.
    var unguarded = false
    /// Set when a command run unguarded failed after a change: the transaction must not commit (`BrokerEngine` runs
    /// the batch again with savepoints), and the rest of it does not run.
    var savepointNeeded = false
    /// On a cluster: the partitions whose leases this transaction checked and holds (nil: no cluster, all).
    var admitted: Set<Int>?
    var partitioning: Partitioning?
    let now: Date
    /// `now` in the time zones the transaction needed it in.
    let localTimes: LocalTimes
    let policy: BrokerPolicy
    let logger: Logger

    init(
        store: any StorageWriter, directory: Directory, heads: [MemberID: UInt64], now: Date, policy: BrokerPolicy,
        logger: Logger
    ) {
        self.store = store
        self.directory = directory
        self.committedHeads = heads
        self.now = now
        self.localTimes = LocalTimes(now: now)
        self.policy = policy
        self.logger = logger
    }

    /// Runs one command in a savepoint (or `unguarded`): on a thrown error its changes are rolled back and the error is
    /// its outcome.
    mutating func inSavepoint(
        device: DeviceID, _ body: (inout Transaction) throws -> CommandOutcome
    ) -> CommandOutcome {
        defer { commandIndex += 1 }
        // After a refused write SQLite may have ended the transaction: a further statement would run, and commit, on
        // its own. The batch fails; the rest of it does not run.
        if let storeFailure { return .failure(ErrorReply(.brokerUnavailable, storeFailure.description)) }
        if savepointNeeded { return .failure(ErrorReply(.internalError, SavepointNeeded().description)) }
        let saved = checkpoint()
        let store = self.store
        do {
            if unguarded { return try store.unguarded { try body(&self) } }
            return try store.savepoint { try body(&self) }
        } catch let error as SavepointNeeded {
            rollback(to: saved)
            savepointNeeded = true
            return .failure(ErrorReply(.internalError, error.description))
        } catch let error as ErrorReply {
            rollback(to: saved)
            return .failure(error)
        } catch let error as WireError {
            rollback(to: saved)
            return .failure(ErrorReply(error.code, error.description))
        } catch let error as StoreUnavailable {
            rollback(to: saved)
            storeFailure = storeFailure ?? error
            return .failure(ErrorReply(.brokerUnavailable, error.description))
        } catch {
            rollback(to: saved)
            logger.error("command failed", metadata: ["device": "\(device)", "error": "\(error)"])
            return .failure(ErrorReply(.internalError, "the broker could not store this command; nothing was changed"))
        }
    }

    /// What a command may change, as it was before the command.
    private struct Checkpoint {
        let directory: Directory
        let directoryChanged: Bool
        let events: Int
        let disconnectedDevices: Int
        let headUndo: Int
    }

    private func checkpoint() -> Checkpoint {
        Checkpoint(
            directory: directory, directoryChanged: directoryChanged, events: events.count,
            disconnectedDevices: disconnectedDevices.count, headUndo: headUndo.count)
    }

    private mutating func rollback(to saved: Checkpoint) {
        directory = saved.directory
        directoryChanged = saved.directoryChanged
        events.removeSubrange(saved.events...)
        eventFrames.removeSubrange(saved.events...)
        disconnectedDevices.removeSubrange(saved.disconnectedDevices...)
        while headUndo.count > saved.headUndo {
            let (member, previous) = headUndo.removeLast()
            changedHeads[member] = previous
        }
    }

    /// Whether `member` is a child now (`Directory.isChild(_:on:)`).
    func isChild(_ member: Directory.Member) -> Bool {
        directory.isChild(member) { localTimes.day(in: $0) }
    }

    /// A member's head, with what this transaction has staged.
    func head(of member: MemberID) -> UInt64 { changedHeads[member] ?? committedHeads[member] ?? 0 }

    /// Runs one checked command. The caller is looked up again in this transaction's directory: a device removed
    /// since its command was checked is refused here.
    mutating func handle(_ request: BrokerRequest) throws -> CommandOutcome {
        guard directory.devices[request.deviceID]?.memberID == request.memberID,
            let member = directory.members[request.memberID]
        else {
            throw ErrorReply(.notAuthorized, "this connection's key is not enrolled")
        }
        commandDevice = request.deviceID
        switch request.command {
        case .hello(let version):
            return .success(
                .welcome(
                    version: version, familyID: member.familyID, memberID: member.id, deviceID: request.deviceID,
                    role: directory.effectiveRole(member, on: now), head: head(of: member.id)))
        case .ping:
            return .success(.pong(head: head(of: member.id)))
        case .sync(let after, let limit):
            let count = Int(min(max(limit, 1), Wire.maxEventsPerSync))
            let events = try store.events(of: member.id, after: after, limit: count)
            return .success(.events(head: head(of: member.id), events))
        case .knownHandles(let handles):
            guard isChild(member) else {
                let role = directory.effectiveRole(member, on: now).name
                throw ErrorReply(.notAvailable, "known handles are kept for children; \(member.id) is \(role)")
            }
            return .success(.knownHandles(try knownHandles(of: member, among: handles)))
        case .ask(let app, let question):
            return .success(try ask(question, app: app, child: member, device: request.deviceID))
        case .answer(let questionID, let choiceID, let message):
            return .success(try answer(questionID, choiceID: choiceID, message: message, parent: member))
        case .approveInPerson(let questionID, _):
            return try answerInPerson(questionID, approve: true, caller: member)
        case .declineInPerson(let questionID, _):
            return try answerInPerson(questionID, approve: false, caller: member)
        case .withdraw(let questionID):
            return .success(try withdraw(questionID, caller: member))
        default:
            return try handleSettings(request.command, member: member)
        }
    }

    /// Settings, contacts, passcodes and age ranges.
    private mutating func handleSettings(_ command: BrokerCommand, member: Directory.Member) throws -> CommandOutcome {
        switch command {
        case .setLimits(let childID, let settings):
            return .success(try setLimits(settings, of: childID, caller: member))
        case .getLimits(let childID):
            let child = try childForSettings(childID, caller: member, allowSelf: true)
            let settings = try settings(of: child)
            return .success(.limits(childID: child.id, settings: settings, contacts: try store.contacts(of: child.id)))
        case .editContacts(let childID, let add, let remove):
            return .success(try editContacts(of: childID, add: add, remove: remove, caller: member))
        case .revokeApproval(let childID, let handles):
            return .success(try revokeApproval(handles, of: childID, caller: member))
        case .listApproved(let childID):
            return .success(try approvedList(of: childID, caller: member))
        case .history(let query):
            return .success(try historyPage(query, caller: member))
        case .setPasscode(let childID, let passcode):
            return .success(try setPasscode(passcode, of: childID, caller: member))
        default:
            return .success(try handleAgeRange(command, member: member))
        }
    }

    // MARK: events

    /// Room for a batch's events (an ask or an answer publishes two to four): grown append by append, the arrays were
    /// reallocated about ten times in a batch of 256.
    mutating func reserveEvents(forCommands count: Int) {
        events.reserveCapacity(count * 3)
        eventFrames.reserveCapacity(count * 3)
        headUndo.reserveCapacity(count * 3)
    }

    /// Stores an event for `member` with the next sequence number; it is published once committed.
    mutating func publish(_ body: Event.Body, to member: MemberID) throws {
        let sequence = head(of: member) + 1
        // Encoded once: the published frame and the stored body are the same bytes (an event too large for a frame
        // is stored and published trimmed, or omitted).
        let event = Event(memberID: member, sequence: sequence, createdAt: now, body: body)
        let (stored, frame) = event.publicationFrame()
        try stage(stored, frame: frame)
    }

    /// `publish(_:to:)` of a body encoded once for all its members.
    mutating func publish(_ shared: SharedEventBody, to member: MemberID) throws {
        // Over the size limit the event is trimmed or omitted (`Event.publicationFrame`): the rare case keeps its path.
        guard MessageCodec.eventHeadBytes(member: member) + shared.encoded.count <= Wire.maxEventBytes else {
            return try publish(shared.body, to: member)
        }
        let sequence = head(of: member) + 1
        let frame = MessageCodec.eventFrame(
            member: member, sequence: sequence, createdAt: now, encodedBody: shared.encoded)
        try stage(Event(memberID: member, sequence: sequence, createdAt: now, body: shared.body), frame: frame)
    }

    /// Stores an event with its frame and stages its member's new head.
    private mutating func stage(_ event: Event, frame: [UInt8]) throws {
        try store.appendEvent(event, body: Event.storedBody(ofFrame: frame))
        eventFrames.append(frame)
        // One hash of the member for the head and its undo entry.
        headUndo.append((event.memberID, changedHeads.updateValue(event.sequence, forKey: event.memberID)))
        events.append(event)
    }

    /// Resolves a pending question without a parent's answer, records it in the family's history, and tells the
    /// child and the family's parents.
    @discardableResult
    mutating func resolveWithDefault(
        _ stored: Stored.Question, reason: Resolution.Reason, family: FamilyID?, parents: [MemberID]
    ) throws -> Resolution? {
        let asked = stored.asked
        guard stored.resolution == nil, let choice = asked.question.defaultChoice else { return nil }
        let resolution = Resolution(
            questionID: asked.question.id, choice: choice, reason: reason, answeredBy: nil, resolvedAt: now)
        try store.resolve(asked.question.id, with: resolution)
        try recordHistory(HistoryEntry(asked: asked, resolution: resolution, deviceID: commandDevice), family: family)
        let resolved = SharedEventBody(.questionResolved(asked, resolution))
        try publish(resolved, to: asked.childMemberID)
        for parent in parents {
            try publish(resolved, to: parent)
        }
        return resolution
    }

    // MARK: authorization

    /// The child whose settings `caller` may read or change: a parent of the child's family, or the child itself when
    /// `allowSelf`. A caller outside the child's family gets the same reply for an existing child as for a missing
    /// one (`notFound` for a parent, `notAuthorized` otherwise, with the same text), so it learns nothing about it.
    func childForSettings(_ childID: MemberID, caller: Directory.Member, allowSelf: Bool) throws -> Directory.Member {
        let child = directory.members[childID].flatMap { member in
            member.familyID != nil && isChild(member) ? member : nil
        }
        if let child {
            if caller.role.isParent, caller.familyID == child.familyID { return child }
            if allowSelf, caller.id == child.id { return child }
            if caller.familyID == child.familyID {
                let role = directory.effectiveRole(caller, on: now).name
                throw ErrorReply(
                    .notAuthorized,
                    "only the organizer or a guardian of \(childID)'s family may do this; \(caller.id) is \(role)")
            }
        }
        if caller.role.isParent { throw ErrorReply(.notFound, "no child \(childID) in your family") }
        throw ErrorReply(.notAuthorized, "only the organizer or a guardian of \(childID)'s family may do this")
    }
}
