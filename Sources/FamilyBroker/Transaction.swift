import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Logging

/// The state of one write transaction: staged heads, events, replies and directory, restored when a command's
/// savepoint rolls back.
///
/// Committed heads are only read and staged ones live in `changedHeads`; a rollback truncates what the command
/// appended and undoes its head changes from a log. So no command copies state that grows with the batch (events)
/// or with the directory (heads), which made a batch's cost quadratic.
struct Transaction {
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
    var replies: [(routingID: [UInt8], frame: [UInt8])] = []
    var disconnectedDevices: [DeviceID] = []
    /// Passcode hashing done before the transaction, by command index (`PasscodeWork`).
    var secrets: [Int: PasscodeWork.Prepared] = [:]
    var commandIndex = 0
    let now: Date
    let policy: BrokerPolicy
    let logger: Logger

    init(directory: Directory, heads: [MemberID: UInt64], now: Date, policy: BrokerPolicy, logger: Logger) {
        self.directory = directory
        self.committedHeads = heads
        self.now = now
        self.policy = policy
        self.logger = logger
    }

    /// Runs one command in a savepoint: on a thrown error its changes are rolled back and the error becomes the reply.
    mutating func inSavepoint(_ db: Database, device: DeviceID?, _ body: (inout Transaction) throws -> Message) -> Message {
        let saved = checkpoint()
        defer { commandIndex += 1 }
        do {
            try db.cachedStatement(sql: "SAVEPOINT command").execute()
            do {
                let reply = try body(&self)
                try db.cachedStatement(sql: "RELEASE SAVEPOINT command").execute()
                return reply
            } catch {
                try db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT command").execute()
                try db.cachedStatement(sql: "RELEASE SAVEPOINT command").execute()
                throw error
            }
        } catch let error as ErrorReply {
            rollback(to: saved)
            return .error(error)
        } catch let error as WireError {
            rollback(to: saved)
            return .error(ErrorReply(error.code, error.description))
        } catch {
            rollback(to: saved)
            logger.error("command failed", metadata: ["device": "\(device ?? "-")", "error": "\(error)"])
            return .error(ErrorReply(.internalError, "the broker could not store this command; nothing was changed"))
        }
    }

    /// What a command may change, as it was before the command; replies are kept by a rollback.
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

    /// A member's head, with what this transaction has staged.
    func head(of member: MemberID) -> UInt64 { changedHeads[member] ?? committedHeads[member] ?? 0 }

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
                version: Wire.version, familyID: member.familyID, memberID: member.id, deviceID: deviceID,
                role: directory.effectiveRole(member, on: now), head: head(of: member.id))
        case .ping:
            return .pong(head: head(of: member.id))
        case .sync(let after, let limit):
            let count = Int(min(max(limit, 1), Wire.maxEventsPerSync))
            return .events(head: head(of: member.id), events: try BrokerStore.events(of: member.id, after: after, limit: count, in: db))
        case .knownHandles(let handles):
            guard directory.isChild(member, on: now) else {
                throw ErrorReply(.notAvailable, "known handles are kept for children; \(member.id) is \(directory.effectiveRole(member, on: now).name)")
            }
            return .knownHandlesResult(try knownHandles(of: member, among: handles, in: db))
        case .ask(let app, let question):
            return try ask(question, app: app, child: member, device: deviceID, in: db)
        case .answer(let questionID, let choiceID):
            return try answer(questionID, choiceID: choiceID, parent: member, in: db)
        case .approveInPerson(let questionID, _):
            return try approveInPerson(questionID, caller: member, in: db)
        case .setLimits(let childID, let settings):
            return try setLimits(settings, of: childID, caller: member, in: db)
        case .getLimits(let childID):
            let child = try childForSettings(childID, caller: member, allowSelf: true)
            return .limits(childID: child.id, settings: try settings(of: child, in: db), contacts: try BrokerStore.contacts(of: child.id, in: db))
        case .editContacts(let childID, let add, let remove):
            return try editContacts(of: childID, add: add, remove: remove, caller: member, in: db)
        case .revokeApproval(let childID, let handles):
            return try revokeApproval(handles, of: childID, caller: member, in: db)
        case .setPasscode(let childID, let passcode):
            return try setPasscode(passcode, of: childID, caller: member, in: db)
        case .ageRange(let message):
            return try handleAgeRange(message, member: member, in: db)
        default:
            throw ErrorReply(.unknownMessageType, "message type 0x\(String(envelope.message.typeCode, radix: 16)) is not a broker command")
        }
    }

    // MARK: events

    mutating func publish(_ body: Event.Body, to member: MemberID, in db: Database) throws {
        let sequence = head(of: member) + 1
        let (stored, frame) = try BrokerStore.appendEvent(
            Event(memberID: member, sequence: sequence, createdAt: now, body: body), in: db)
        eventFrames.append(frame)
        headUndo.append((member, changedHeads[member]))
        changedHeads[member] = sequence
        events.append(stored)
    }

    /// Resolves a pending question without a parent's answer and tells the child and the family's parents.
    mutating func resolveWithDefault(_ stored: BrokerStore.StoredQuestion, reason: Resolution.Reason, parents: [MemberID], in db: Database) throws {
        let asked = stored.asked
        guard stored.resolution == nil, let choice = asked.question.defaultChoice else { return }
        let resolution = Resolution(questionID: asked.question.id, choice: choice, reason: reason, answeredBy: nil, resolvedAt: now)
        try BrokerStore.resolve(asked.question.id, with: resolution, in: db)
        try publish(.questionResolved(asked, resolution), to: asked.childMemberID, in: db)
        for parent in parents {
            try publish(.questionResolved(asked, resolution), to: parent, in: db)
        }
    }

    // MARK: authorization

    /// The child whose settings `caller` may read or change: a parent of the child's family, or the child itself when
    /// `allowSelf`. A caller outside the child's family gets the same reply for an existing child as for a missing
    /// one (`notFound` for a parent, `notAuthorized` otherwise, with the same text), so it learns nothing about it.
    func childForSettings(_ childID: MemberID, caller: Directory.Member, allowSelf: Bool) throws -> Directory.Member {
        let child = directory.members[childID].flatMap { member in
            member.familyID != nil && directory.isChild(member, on: now) ? member : nil
        }
        if let child {
            if caller.role.isParent, caller.familyID == child.familyID { return child }
            if allowSelf, caller.id == child.id { return child }
            if caller.familyID == child.familyID {
                let role = directory.effectiveRole(caller, on: now).name
                throw ErrorReply(
                    .notAuthorized, "only the organizer or a guardian of \(childID)'s family may do this; \(caller.id) is \(role)")
            }
        }
        if caller.role.isParent { throw ErrorReply(.notFound, "no child \(childID) in your family") }
        throw ErrorReply(.notAuthorized, "only the organizer or a guardian of \(childID)'s family may do this")
    }
}
