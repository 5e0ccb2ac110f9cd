import Foundation
public import GRDB
public import HearthCore
public import HearthProtocol
import Logging
import Synchronization

/// Declared Age Range on a device, for whoever uses it (a child's or an adult's): forwards apps' requests to the
/// broker, keeps the member's Ask First prompts for a person to answer, and pushes answer changes to watching apps.
/// Wraps the daemon's own behaviour, which sees every other message and event unchanged.
public final class AgeRangeSupport<Base: DeviceBehavior>: DeviceBehavior {
    public let base: Base
    public var name: String { base.name }
    /// How long the daemon waits for the broker before telling the app it is unreachable.
    public let brokerDeadline: Duration
    private let prompts: AgePromptStore

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

    public init(_ base: Base, prompts: AgePromptStore, brokerDeadline: Duration = .seconds(3)) {
        self.base = base
        self.prompts = prompts
        self.brokerDeadline = brokerDeadline
    }

    public func apply(_ event: Event, in db: Database) throws {
        guard case .ageRange(let body) = event.body else { return try base.apply(event, in: db) }
        try AgePromptStore.apply(body, in: db)
    }

    public func applied(_ events: [Event], context: any DeviceContext) async {
        await base.applied(events, context: context)
        for event in events {
            guard case .ageRange(let body) = event.body else { continue }
            switch body {
            case .answerChanged(let app, let answer):
                if case .sharing(let range) = answer {
                    // The user's notification that new information was revealed.
                    context.logger.notice(
                        "age range shared", metadata: ["app": "\(app)", "range": "\(range.boundsDescription)"])
                }
                let targets = state.withLock { $0.watchers.filter { $0.value.contains(app) }.map(\.key) }
                for target in targets {
                    context.sendLocal(.ageRange(.update(app: app, promptID: nil, answer)), to: target)
                }
            case .promptOpened(let prompt):
                context.logger.notice(
                    "age range prompt waiting",
                    metadata: [
                        "prompt": "\(prompt.id)", "app": "\(prompt.app)", "range": "\(prompt.range.boundsDescription)",
                    ])
            case .promptClosed(let id, let app, let answer):
                finish(prompt: id, app: app, answer: answer, context: context)
            }
        }
    }

    public func linked(context: any DeviceContext) async {
        await base.linked(context: context)
    }

    public func serve(context: any DeviceContext) async {
        await base.serve(context: context)
    }

    public func handleLocal(
        _ envelope: Envelope, from routingID: [UInt8], context: any DeviceContext
    ) async -> Message? {
        guard case .ageRange(let message) = envelope.message else {
            return await base.handleLocal(envelope, from: routingID, context: context)
        }
        switch message {
        case .request(let app, let gates):
            do {
                try AgeRangeRules.validate(gates)
            } catch {
                // Checked here too, so a wrong request is named as such even while the broker is away.
                return .error(ErrorReply(.invalidAgeRequest, error.description))
            }
            let reply = await forward(message, context: context)
            if case .ageRange(.prompted(let id, _, let milliseconds)) = reply {
                wait(for: id, app: app, routingID: routingID, milliseconds: milliseconds, context: context)
            }
            return reply
        case .watch(let app):
            state.withLock { state in
                if state.watchers[routingID] == nil, state.watchers.count >= Self.maxWatchers,
                    let evicted = state.watchers.keys.first
                {
                    state.watchers[evicted] = nil
                }
                state.watchers[routingID, default: []].insert(app)
            }
            return .ok
        case .listPrompts:
            do {
                return .ageRange(.promptList(try await prompts.prompts()))
            } catch {
                return .error(ErrorReply(.internalError, "\(name) could not read its age range prompts"))
            }
        case .setSharing, .answerPrompt, .clearCache:
            return await forward(message, context: context)
        case .requestRegulatoryFeatures, .acknowledgeUpdate:
            // An older broker has no such command: say so, rather than send it what it cannot read.
            if let identity = context.identity, identity.version < Wire.ageSignalsVersion {
                let what = message == .requestRegulatoryFeatures ? "regulatory features" : "acknowledgments"
                let reason = "the family broker speaks protocol \(identity.version), which has no \(what)"
                return .error(ErrorReply(.unsupportedVersion, reason))
            }
            return await forward(message, context: context)
        default:
            return .error(
                ErrorReply(
                    .unknownMessageType, "\(name) does not handle message type 0x\(String(message.typeCode, radix: 16))"
                ))
        }
    }

    /// Sends a command to the broker within the deadline; an unreachable broker is named as such.
    private func forward(_ message: AgeRangeMessage, context: any DeviceContext) async -> Message {
        guard context.isLinked else {
            if context.isRefusedByBroker {
                let reason = "the family broker refused this device's key \(context.publicKey): it is not enrolled"
                return .error(ErrorReply(.deviceNotEnrolled, reason))
            }
            return .error(ErrorReply(.brokerUnavailable, "\(name) is not connected to its family broker"))
        }
        do {
            return try await context.request(.ageRange(message), timeout: brokerDeadline)
        } catch let error as ErrorReply {
            return .error(error)
        } catch {
            return .error(
                ErrorReply(.brokerUnavailable, "the family broker did not answer within \(brokerDeadline): \(error)"))
        }
    }

    /// Remembers that the app at `routingID` waits for prompt `id`; past the deadline (and a little slack for the
    /// broker's own expiry event) it is told the prompt declined.
    private func wait(
        for id: UUID, app: BundleID, routingID: [UInt8], milliseconds: UInt32, context: any DeviceContext
    ) {
        let done = state.withLock { state -> AgeRangeAnswer? in
            if let answer = state.closed[id] { return answer }
            state.waiting[id, default: []].append(Waiter(routingID: routingID, app: app))
            return nil
        }
        if let done {
            context.sendLocal(.ageRange(.update(app: app, promptID: id, done)), to: routingID)
            return
        }
        context.addTask { [self] in
            // A daemon stopping cancels the wait: the prompt has not timed out, so the app is told nothing.
            guard (try? await Task.sleep(for: .milliseconds(Int(milliseconds) + 500))) != nil else { return }
            finish(prompt: id, app: app, answer: .declined(.promptTimedOut), context: context, remember: false)
        }
    }

    private func finish(
        prompt id: UUID, app: BundleID, answer: AgeRangeAnswer, context: any DeviceContext, remember: Bool = true
    ) {
        let waiters = state.withLock { state -> [Waiter] in
            if remember, state.closed[id] == nil {
                state.closed[id] = answer
                state.closedOrder.append(id)
                if state.closedOrder.count > Self.keptOutcomes { state.closed[state.closedOrder.removeFirst()] = nil }
            }
            return state.waiting.removeValue(forKey: id) ?? []
        }
        for waiter in waiters {
            context.sendLocal(.ageRange(.update(app: waiter.app, promptID: id, answer)), to: waiter.routingID)
        }
    }
}
