import DeviceRuntime
import Foundation
import GRDB
import HearthCore
import HearthProtocol

/// The parent-device daemon's behaviour: keeps the questions waiting for this parent, with all their metadata, and
/// lets a person list and answer them over the local control socket.
public final class ParentBehavior: DeviceBehavior {
    public let name = "parent-device"

    public init() {}

    public func migrate(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("parent-v1") { db in
            try db.execute(sql: """
                CREATE TABLE pending (question_id BLOB PRIMARY KEY, asked BLOB NOT NULL, asked_at REAL NOT NULL);
                CREATE TABLE resolved (question_id BLOB PRIMARY KEY, asked BLOB NOT NULL, resolution BLOB NOT NULL);
                """)
        }
    }

    public func apply(_ event: Event, in db: Database) throws {
        switch event.body {
        case .questionPending(let asked):
            var w = WireWriter()
            w.askedQuestion(asked)
            let id = asked.question.id.wireBytes
            guard try !(Bool.fetchOne(db, sql: "SELECT 1 FROM resolved WHERE question_id = ?", arguments: [id]) ?? false) else { return }
            try db.execute(
                sql: "INSERT OR IGNORE INTO pending (question_id, asked, asked_at) VALUES (?, ?, ?)",
                arguments: [id, Data(w.bytes), asked.askedAt.timeIntervalSince1970])
        case .questionResolved(let asked, let resolution):
            var a = WireWriter()
            a.askedQuestion(asked)
            var r = WireWriter()
            r.resolution(resolution)
            let id = asked.question.id.wireBytes
            try db.execute(sql: "DELETE FROM pending WHERE question_id = ?", arguments: [id])
            try db.execute(
                sql: "INSERT OR REPLACE INTO resolved (question_id, asked, resolution) VALUES (?, ?, ?)",
                arguments: [id, Data(a.bytes), Data(r.bytes)])
        case .handlesChanged, .ageRange, .omitted:
            break
        }
    }

    public func applied(_ events: [Event], runtime: DeviceRuntime) async {
        for event in events {
            switch event.body {
            case .questionPending(let asked):
                runtime.logger.info("question waiting", metadata: [
                    "question": "\(asked.question.id)", "child": "\(asked.childMemberID)", "app": "\(asked.appBundleID)",
                ])
            case .questionResolved(let asked, let resolution):
                runtime.logger.info("question answered", metadata: [
                    "question": "\(asked.question.id)", "choice": "\(resolution.choice.id)",
                    "by": "\(resolution.answeredBy ?? "-")", "reason": "\(resolution.reason)",
                ])
            case .handlesChanged, .ageRange, .omitted: break
            }
        }
    }

    public func linked(runtime: DeviceRuntime) async {}

    public func handleLocal(_ envelope: Envelope, from routingID: [UInt8], runtime: DeviceRuntime) async -> Message? {
        switch envelope.message {
        case .listPending:
            do {
                let list = try await runtime.store.pool.read { db in
                    // Oldest first, as many as fit in one frame (always the first: a question within its budget
                    // fits alone): a person answers and lists again.
                    var list: [AskedQuestion] = []
                    var bytes = 0
                    let rows = try Data.fetchCursor(db, sql: "SELECT asked FROM pending ORDER BY asked_at")
                    while let data = try rows.next() {
                        bytes += data.count
                        if bytes > Wire.maxReplyBodyBytes, !list.isEmpty { break }
                        var r = WireReader(Array(data))
                        list.append(try r.askedQuestion())
                    }
                    return list
                }
                return .pendingList(list)
            } catch {
                return .error(ErrorReply(.internalError, "parent-device could not read its pending list"))
            }
        case .answer, .setLimits, .getLimits, .editContacts, .revokeApproval, .setPasscode:
            // A parent's commands: the broker checks that this device's member may give them.
            return await runtime.forward(envelope.message)
        default:
            return .error(ErrorReply(.unknownMessageType, "parent-device does not handle message type 0x\(String(envelope.message.typeCode, radix: 16))"))
        }
    }

}
