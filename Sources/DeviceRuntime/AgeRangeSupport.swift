import Foundation
import GRDB
import HearthCore
import HearthProtocol
import Synchronization

/// Declared Age Range on a device, for whoever uses it (a child's or an adult's): forwards apps' requests to the
/// broker, keeps the member's Ask First prompts for a person to answer, and pushes answer changes to watching apps.
/// Wraps the daemon's own behaviour, which sees every other message and event unchanged.
public final class AgeRangeSupport<Base: DeviceBehavior>: DeviceBehavior {
    public let base: Base
    public var name: String { base.name }
    /// How long the daemon waits for the broker before telling the app it is unreachable.
    public let brokerDeadline: Duration

    private struct Waiter {
        var routingID: [UInt8]
        var app: BundleID
    }

    private struct State: ~Copyable {
        /// Apps watching their answer, by local client.
        var watchers: [[UInt8]: Set<BundleID>] = [:]
        /// Apps waiting for a prompt's outcome, by prompt id.
        var waiting: [UUID: [Waiter]] = [:]
        /// Outcomes of recently closed prompts, for a request that registers after the close arrived.
        var closed: [UUID: AgeRangeAnswer] = [:]
        var closedOrder: [UUID] = []
    }

    private let state = Mutex(State())
    private static var maxWatchers: Int { 4096 }
    private static var keptOutcomes: Int { 256 }

    public init(_ base: Base, brokerDeadline: Duration = .seconds(3)) {
        self.base = base
        self.brokerDeadline = brokerDeadline
    }

    public func migrate(_ migrator: inout DatabaseMigrator) {
        base.migrate(&migrator)
        migrator.registerMigration("age-range-device-v1") { db in
            try db.execute(sql: "CREATE TABLE age_prompt (id BLOB PRIMARY KEY, prompt BLOB NOT NULL, created_at REAL NOT NULL)")
        }
    }

    public func apply(_ event: Event, in db: Database) throws {
        guard case .ageRange(let body) = event.body else { return try base.apply(event, in: db) }
        switch body {
        case .promptOpened(let prompt):
            var w = WireWriter()
            w.agePrompt(prompt)
            try db.execute(
                sql: "INSERT OR IGNORE INTO age_prompt (id, prompt, created_at) VALUES (?, ?, ?)",
                arguments: [prompt.id.wireBytes, Data(w.bytes), prompt.createdAt.timeIntervalSince1970])
        case .promptClosed(let id, _, _):
            try db.execute(sql: "DELETE FROM age_prompt WHERE id = ?", arguments: [id.wireBytes])
        case .answerChanged:
            break
        }
    }

    public func applied(_ events: [Event], runtime: DeviceRuntime) async {
        await base.applied(events, runtime: runtime)
        for event in events {
            guard case .ageRange(let body) = event.body else { continue }
            switch body {
            case .answerChanged(let app, let answer):
                if case .sharing(let range) = answer {
                    // The user's notification that new information was revealed.
                    runtime.logger.notice("age range shared", metadata: ["app": "\(app)", "range": "\(range.boundsDescription)"])
                }
                let targets = state.withLock { $0.watchers.filter { $0.value.contains(app) }.map(\.key) }
                for target in targets { runtime.sendLocal(.ageRange(.update(app: app, promptID: nil, answer)), to: target) }
            case .promptOpened(let prompt):
                runtime.logger.notice("age range prompt waiting", metadata: [
                    "prompt": "\(prompt.id)", "app": "\(prompt.app)", "range": "\(prompt.range.boundsDescription)",
                ])
            case .promptClosed(let id, let app, let answer):
                finish(prompt: id, app: app, answer: answer, runtime: runtime)
            }
        }
    }

    public func linked(runtime: DeviceRuntime) async {
        await base.linked(runtime: runtime)
    }

    public func handleLocal(_ envelope: Envelope, from routingID: [UInt8], runtime: DeviceRuntime) async -> Message? {
        guard case .ageRange(let message) = envelope.message else {
            return await base.handleLocal(envelope, from: routingID, runtime: runtime)
        }
        switch message {
        case .request(let app, let gates):
            do {
                try AgeRangeRules.validate(gates)
            } catch {
                // Checked here too, so a wrong request is named as such even while the broker is away.
                return .error(ErrorReply(.invalidAgeRequest, error.description))
            }
            let reply = await forward(message, runtime: runtime)
            if case .ageRange(.prompted(let id, _, let milliseconds)) = reply {
                wait(for: id, app: app, routingID: routingID, milliseconds: milliseconds, runtime: runtime)
            }
            return reply
        case .watch(let app):
            state.withLock { state in
                if state.watchers[routingID] == nil, state.watchers.count >= Self.maxWatchers,
                   let evicted = state.watchers.keys.first {
                    state.watchers[evicted] = nil
                }
                state.watchers[routingID, default: []].insert(app)
            }
            return .ok
        case .listPrompts:
            do {
                let prompts = try await runtime.store.pool.read { db in
                    try Data.fetchAll(db, sql: "SELECT prompt FROM age_prompt ORDER BY created_at").map { data in
                        var r = WireReader(Array(data))
                        return try r.agePrompt()
                    }
                }
                return .ageRange(.promptList(prompts))
            } catch {
                return .error(ErrorReply(.internalError, "\(name) could not read its age range prompts"))
            }
        case .setSharing, .answerPrompt, .clearCache:
            return await forward(message, runtime: runtime)
        default:
            return .error(ErrorReply(.unknownMessageType, "\(name) does not handle message type 0x\(String(message.typeCode, radix: 16))"))
        }
    }

    /// Sends a command to the broker within the deadline; an unreachable broker is named as such.
    private func forward(_ message: AgeRangeMessage, runtime: DeviceRuntime) async -> Message {
        guard runtime.isLinked else {
            if runtime.isRefusedByBroker {
                return .error(ErrorReply(.deviceNotEnrolled, "the family broker refused this device's key \(runtime.publicKey): it is not enrolled"))
            }
            return .error(ErrorReply(.brokerUnavailable, "\(name) is not connected to its family broker"))
        }
        do {
            return try await runtime.request(.ageRange(message), timeout: brokerDeadline)
        } catch let error as ErrorReply {
            return .error(error)
        } catch {
            return .error(ErrorReply(.brokerUnavailable, "the family broker did not answer within \(brokerDeadline): \(error)"))
        }
    }

    /// Remembers that the app at `routingID` waits for prompt `id`; past the deadline (and a little slack for the
    /// broker's own expiry event) it is told the prompt declined.
    private func wait(for id: UUID, app: BundleID, routingID: [UInt8], milliseconds: UInt32, runtime: DeviceRuntime) {
        let done = state.withLock { state -> AgeRangeAnswer? in
            if let answer = state.closed[id] { return answer }
            state.waiting[id, default: []].append(Waiter(routingID: routingID, app: app))
            return nil
        }
        if let done {
            runtime.sendLocal(.ageRange(.update(app: app, promptID: id, done)), to: routingID)
            return
        }
        Task { [self] in
            try? await Task.sleep(for: .milliseconds(Int(milliseconds) + 500))
            finish(prompt: id, app: app, answer: .declined(.promptTimedOut), runtime: runtime, remember: false)
        }
    }

    private func finish(prompt id: UUID, app: BundleID, answer: AgeRangeAnswer, runtime: DeviceRuntime, remember: Bool = true) {
        let waiters = state.withLock { state -> [Waiter] in
            if remember, state.closed[id] == nil {
                state.closed[id] = answer
                state.closedOrder.append(id)
                if state.closedOrder.count > Self.keptOutcomes { state.closed[state.closedOrder.removeFirst()] = nil }
            }
            return state.waiting.removeValue(forKey: id) ?? []
        }
        for waiter in waiters { runtime.sendLocal(.ageRange(.update(app: waiter.app, promptID: id, answer)), to: waiter.routingID) }
    }
}
