import DeviceRuntime
import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Synchronization

/// The child-device daemon's behaviour: serves apps on the local socket, keeps an outbox of questions not yet
/// accepted by the broker and a per-app inbox of responses not yet taken.
public final class ChildBehavior: DeviceBehavior {
    public let name = "child-device"
    /// The app each connected local client named in its hello, by routing id.
    private let sessions = Mutex<[[UInt8]: BundleID]>([:])
    /// Serializes outbox flushes so a question is never forwarded twice at once.
    private let flushing = Mutex(false)

    public init() {}

    public func migrate(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("child-v1") { db in
            try db.execute(sql: """
                CREATE TABLE outbox (question_id BLOB PRIMARY KEY, app TEXT NOT NULL, question BLOB NOT NULL, created_at REAL NOT NULL);
                CREATE TABLE inbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, app TEXT NOT NULL, question_id BLOB NOT NULL UNIQUE,
                    asked BLOB NOT NULL, resolution BLOB NOT NULL
                );
                CREATE INDEX inbox_app ON inbox(app);
                CREATE TABLE known_handle (kind INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (kind, value)) WITHOUT ROWID;
                """)
        }
    }

    public func apply(_ event: Event, in db: Database) throws {
        switch event.body {
        case .questionPending(let asked):
            try db.execute(sql: "DELETE FROM outbox WHERE question_id = ?", arguments: [asked.question.id.wireBytes])
        case .questionResolved(let asked, let resolution):
            try db.execute(sql: "DELETE FROM outbox WHERE question_id = ?", arguments: [asked.question.id.wireBytes])
            var a = WireWriter()
            a.askedQuestion(asked)
            var r = WireWriter()
            r.resolution(resolution)
            try db.execute(
                sql: "INSERT OR IGNORE INTO inbox (app, question_id, asked, resolution) VALUES (?, ?, ?, ?)",
                arguments: [asked.appBundleID, asked.question.id.wireBytes, Data(a.bytes), Data(r.bytes)])
        case .handlesChanged(let added, let removed):
            for handle in added {
                try db.execute(sql: "INSERT OR IGNORE INTO known_handle (kind, value) VALUES (?, ?)", arguments: [handle.kind.rawValue, handle.value])
            }
            for handle in removed {
                try db.execute(sql: "DELETE FROM known_handle WHERE kind = ? AND value = ?", arguments: [handle.kind.rawValue, handle.value])
            }
        case .ageRange:
            break  // AgeRangeSupport's
        case .omitted:
            break  // nothing to apply: the position is recorded, and DeviceRuntime logs it
        }
    }

    public func applied(_ events: [Event], runtime: DeviceRuntime) async {
        let apps = Set(events.compactMap { event -> BundleID? in
            if case .questionResolved(let asked, _) = event.body { return asked.appBundleID }
            return nil
        })
        for app in apps { await push(app: app, runtime: runtime) }
    }

    public func linked(runtime: DeviceRuntime) async {
        await flushOutbox(runtime: runtime)
    }

    public func handleLocal(_ envelope: Envelope, from routingID: [UInt8], runtime: DeviceRuntime) async -> Message? {
        switch envelope.message {
        case .appHello(let bundleID):
            sessions.withLock { $0[routingID] = bundleID }
            let member = runtime.identity?.memberID
            let cached = member == nil ? try? await runtime.store.value("member_id") : member
            runtime.sendLocal(.appWelcome(memberID: cached ?? nil, brokerConnected: runtime.isLinked), to: routingID, requestID: envelope.requestID)
            // After the welcome: everything still waiting in this app's inbox.
            await push(app: bundleID, runtime: runtime, only: routingID)
            return nil
        case .ask(_, let question):
            guard let app = sessions.withLock({ $0[routingID] }) else { return Self.helloRequired }
            return await ask(question, app: app, runtime: runtime)
        case .knownHandles(let handles):
            guard sessions.withLock({ $0[routingID] }) != nil else { return Self.helloRequired }
            if runtime.isLinked, let reply = try? await runtime.request(.knownHandles(handles), timeout: .seconds(2)) {
                return reply
            }
            // Offline: the handles this device has learned from the broker's events.
            let known = (try? await runtime.store.pool.read { db in
                try handles.filter { h in
                    try Bool.fetchOne(db, sql: "SELECT 1 FROM known_handle WHERE kind = ? AND value = ?", arguments: [h.kind.rawValue, h.value]) ?? false
                }
            }) ?? []
            return .knownHandlesResult(known)
        case .appAck(let inboxID):
            guard let app = sessions.withLock({ $0[routingID] }) else { return Self.helloRequired }
            // Only the app the response belongs to can take it.
            _ = try? await runtime.store.pool.write { db in
                try db.execute(sql: "DELETE FROM inbox WHERE id = ? AND app = ?", arguments: [Int64(clamping: inboxID), app])
            }
            return .ok
        case .getLimits, .editContacts, .approveInPerson:
            // The child's own limits and contacts, and a parent typing the passcode on this device: the broker decides.
            return await runtime.forward(envelope.message)
        default:
            return .error(ErrorReply(.unknownMessageType, "child-device does not handle message type 0x\(String(envelope.message.typeCode, radix: 16))"))
        }
    }

    private static let helloRequired = Message.error(ErrorReply(.helloRequired, "send appHello with your bundle id first"))

    // MARK: ask and outbox

    private func ask(_ question: Question, app: BundleID, runtime: DeviceRuntime) async -> Message {
        // Refused before it is stored: a question over its budget would wedge the outbox and the child's event log.
        if let violation = QuestionBudget.check(question) {
            return .error(ErrorReply(.questionTooLarge, violation.description))
        }
        var w = WireWriter()
        w.question(question)
        let bytes = Data(w.bytes)
        do {
            // Durable before anything else: an ask made while the broker is down goes out when it is back.
            try await runtime.store.pool.write { db in
                try db.execute(
                    sql: "INSERT OR IGNORE INTO outbox (question_id, app, question, created_at) VALUES (?, ?, ?, ?)",
                    arguments: [question.id.wireBytes, app, bytes, Date().timeIntervalSince1970])
            }
        } catch {
            return .error(ErrorReply(.internalError, "child-device could not store the question"))
        }
        if runtime.isLinked {
            do {
                let reply = try await runtime.request(.ask(appBundleID: app, question: question))
                try? await removeFromOutbox(question.id, runtime: runtime)
                return reply
            } catch let error as ErrorReply {
                // The broker refused it for good: the app learns why now, and it is not retried.
                try? await removeFromOutbox(question.id, runtime: runtime)
                return .error(error)
            } catch {
                // No reply in time: it stays in the outbox and is retried; the app's answer arrives in `updates`.
            }
        }
        // Ids from the last welcome (kept across restarts); "unlinked" before this device was ever welcomed.
        var member = runtime.identity?.memberID
        if member == nil { member = (try? await runtime.store.value("member_id")) ?? nil }
        var device = runtime.identity?.deviceID
        if device == nil { device = (try? await runtime.store.value("device_id")) ?? nil }
        let queued = AskedQuestion(
            question: question, childMemberID: member ?? "unlinked", appBundleID: app,
            askingDeviceID: device ?? "unlinked", askedAt: Date())
        return .askAccepted(queued, nil)
    }

    private func removeFromOutbox(_ id: UUID, runtime: DeviceRuntime) async throws {
        try await runtime.store.pool.write { db in
            try db.execute(sql: "DELETE FROM outbox WHERE question_id = ?", arguments: [id.wireBytes])
        }
    }

    /// Sends every question still in the outbox; the broker's idempotency makes a resend harmless.
    public func flushOutbox(runtime: DeviceRuntime) async {
        guard flushing.withLock({ busy in
            defer { busy = true }
            return !busy
        }) else { return }
        defer { flushing.withLock { $0 = false } }
        let rows = (try? await runtime.store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT app, question FROM outbox ORDER BY created_at").map { row -> (String, Data) in (row[0], row[1]) }
        }) ?? []
        for (app, data) in rows {
            var r = WireReader(Array(data))
            guard let question = try? r.question() else { continue }
            if let violation = QuestionBudget.check(question) {
                // Queued by an older child-device: the broker would refuse it (or drop the link), so it never goes.
                runtime.logger.warning("dropping a queued question over its budget", metadata: [
                    "question": "\(question.id)", "app": "\(app)", "error": "\(violation)",
                ])
                try? await removeFromOutbox(question.id, runtime: runtime)
                continue
            }
            do {
                _ = try await runtime.request(.ask(appBundleID: app, question: question))
                try? await removeFromOutbox(question.id, runtime: runtime)
            } catch let error as ErrorReply {
                runtime.logger.warning("the broker refused a queued question", metadata: ["question": "\(question.id)", "error": "\(error)"])
                try? await removeFromOutbox(question.id, runtime: runtime)
            } catch {
                return  // link down again; the next link flushes
            }
        }
    }

    // MARK: inbox

    /// Pushes the app's waiting responses to its connected clients (or to one of them).
    private func push(app: BundleID, runtime: DeviceRuntime, only: [UInt8]? = nil) async {
        let targets = only.map { [$0] } ?? sessions.withLock { $0.filter { $0.value == app }.map(\.key) }
        guard !targets.isEmpty else { return }
        let rows = (try? await runtime.store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, asked, resolution FROM inbox WHERE app = ? ORDER BY id", arguments: [app])
                .map { row -> (Int64, Data, Data) in (row[0], row[1], row[2]) }
        }) ?? []
        for (id, askedData, resolutionData) in rows {
            var a = WireReader(Array(askedData))
            var r = WireReader(Array(resolutionData))
            guard let asked = try? a.askedQuestion(), let resolution = try? r.resolution() else { continue }
            for target in targets {
                runtime.sendLocal(.appResponse(inboxID: UInt64(id), asked, resolution), to: target)
            }
        }
    }

}
