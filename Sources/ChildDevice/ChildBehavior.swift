public import DeviceRuntime
import Foundation
public import GRDB
public import HearthCore
public import HearthProtocol
import Logging
import Synchronization

/// The child-device daemon's behaviour: serves apps on the local socket, keeps an outbox of questions not yet
/// accepted by the broker and a per-app inbox of responses not yet taken (both in its `ChildStore`).
public final class ChildBehavior: DeviceBehavior {
    public let name = "child-device"
    private let store: ChildStore
    /// The app each connected local client named in its hello, by routing id.
    private let sessions: Mutex<AppSessions>
    private let now: @Sendable () -> ContinuousClock.Instant
    /// Serializes outbox flushes so a question is never forwarded twice at once; `again` when one was asked for
    /// while another ran.
    private let flushing = Mutex((busy: false, again: false))
    /// Whether a flush is already scheduled after a send failed while linked (the broker said it cannot store now, or
    /// did not answer in time), and how long the next one waits: `firstRetryDelay`, doubled after each failure up to
    /// `maxRetryDelay`, back to the first once the broker takes a question. So a broker on a full or slow disk gets
    /// at most one of this device's questions at a time, less and less often.
    private let retry = Mutex((scheduled: false, delay: ChildBehavior.firstRetryDelay))
    static let firstRetryDelay: Duration = .seconds(1)
    static let maxRetryDelay: Duration = .seconds(8)

    /// A behaviour over `store`; a local client silent for `sessionIdleLimit` must say hello again.
    public convenience init(store: ChildStore, sessionIdleLimit: Duration = .seconds(60)) {
        self.init(store: store, sessionIdleLimit: sessionIdleLimit, sessionCapacity: 4096, now: { .now })
    }

    init(
        store: ChildStore, sessionIdleLimit: Duration, sessionCapacity: Int,
        now: @escaping @Sendable () -> ContinuousClock.Instant
    ) {
        self.store = store
        sessions = Mutex(AppSessions(idleLimit: sessionIdleLimit, capacity: sessionCapacity))
        self.now = now
    }

    /// The local clients currently known.
    var sessionCount: Int { sessions.withLock { $0.count } }

    public func apply(_ event: Event, in db: Database) throws {
        try ChildStore.apply(event, in: db)
    }

    public func applied(_ events: [Event], context: any DeviceContext) async {
        let apps = Set(
            events.compactMap { event -> BundleID? in
                if case .questionResolved(let asked, _) = event.body { return asked.appBundleID }
                return nil
            })
        for app in apps { await push(app: app, context: context) }
    }

    public func linked(context: any DeviceContext) async {
        await flushOutbox(context: context)
    }

    public func handleLocal(
        _ envelope: Envelope, from routingID: [UInt8], context: any DeviceContext
    ) async -> Message? {
        if case .appHello(let bundleID) = envelope.message {
            await hello(bundleID, from: routingID, requestID: envelope.requestID, context: context)
            return nil
        }
        switch envelope.message {
        case .ask, .knownHandles, .appAck, .withdraw:
            let app = sessions.withLock { [now] in $0.app(of: routingID, at: now()) }
            guard let app else { return Self.helloRequired }
            return await handleApp(envelope.message, app: app, context: context)
        case .listPending:
            return await waitingList(context: context)
        case .getLimits where !context.isLinked && isApp(routingID):
            // An app reads the limits right before it asks (Apple's spelling): offline, it asks at once rather than
            // after the short wait for the link a person's console gets.
            return .error(ErrorReply(.brokerUnavailable, "child-device is not connected to its broker"))
        case .getLimits, .editContacts, .approveInPerson:
            // The child's own limits and contacts, and a parent typing the passcode on this device: the broker decides.
            return await context.forward(envelope.message)
        case .declineInPerson:
            // An older broker has no such command: say so, rather than send it what it cannot read.
            if let identity = context.identity, identity.version < Wire.inPersonDeclineVersion {
                let reason = "the family broker speaks protocol \(identity.version), which has no decline in person"
                return .error(ErrorReply(.unsupportedVersion, reason))
            }
            return await context.forward(envelope.message)
        default:
            let type = String(envelope.message.typeCode, radix: 16)
            return .error(ErrorReply(.unknownMessageType, "child-device does not handle message type 0x\(type)"))
        }
    }

    /// Whether `routingID` is an app that said hello (not a person's console).
    private func isApp(_ routingID: [UInt8]) -> Bool {
        sessions.withLock { [now] in $0.app(of: routingID, at: now()) } != nil
    }

    /// The child's questions nobody has answered yet, oldest first: those the broker holds, then those still in the
    /// outbox (a question asked offline can be withdrawn too). For a person naming one by a prefix of its id.
    private func waitingList(context: any DeviceContext) async -> Message {
        do {
            var list = try await store.waiting(maxBytes: Wire.maxReplyBodyBytes)
            let listed = Set(list.map(\.question.id))
            var bytes = list.reduce(0) { $0 + Self.size(of: $1) }
            let (member, device) = await context.knownIdentity()
            for (app, question) in try await store.outbox() where !listed.contains(question.id) {
                let queued = AskedQuestion(
                    question: question, childMemberID: member ?? "unlinked", appBundleID: app,
                    askingDeviceID: device ?? "unlinked", askedAt: Date())
                bytes += Self.size(of: queued)
                if bytes > Wire.maxReplyBodyBytes { break }
                list.append(queued)
            }
            return .pendingList(list)
        } catch {
            return .error(ErrorReply(.internalError, "child-device could not read its waiting questions"))
        }
    }

    private static func size(of asked: AskedQuestion) -> Int {
        var w = WireWriter()
        w.askedQuestion(asked)
        return w.bytes.count
    }

    private static let helloRequired = Message.error(
        ErrorReply(.helloRequired, "send appHello with your bundle id first"))

    private func hello(_ app: BundleID, from routingID: [UInt8], requestID: UInt64, context: any DeviceContext) async {
        sessions.withLock { [now] in $0.hello(routingID, app: app, at: now()) }
        let member = await context.knownIdentity().memberID
        let welcome = Message.appWelcome(memberID: member, brokerConnected: context.isLinked)
        context.sendLocal(welcome, to: routingID, requestID: requestID)
        // After the welcome: everything still waiting in this app's inbox.
        await push(app: app, context: context, only: routingID)
    }

    /// The requests of an app that said hello.
    private func handleApp(_ message: Message, app: BundleID, context: any DeviceContext) async -> Message {
        switch message {
        case .ask(_, let question):
            return await ask(question, app: app, context: context)
        case .withdraw:
            // A question still in the outbox goes first, so that there is something at the broker to withdraw.
            if context.isLinked { await flushOutbox(context: context) }
            return await context.forward(message)
        case .knownHandles(let handles):
            if context.isLinked, let reply = try? await context.request(.knownHandles(handles), timeout: .seconds(2)) {
                return reply
            }
            // Offline: the handles this device has learned from the broker's events.
            return .knownHandlesResult((try? await store.known(handles)) ?? [])
        case .appAck(let inboxID):
            try? await store.take(inboxID, app: app)
            return .ok
        default:
            return Self.helloRequired
        }
    }

    // MARK: ask and outbox

    private func ask(_ question: Question, app: BundleID, context: any DeviceContext) async -> Message {
        // Refused before it is stored: a question over its budget would wedge the outbox and the child's event log.
        if let violation = QuestionBudget.check(question) {
            return .error(ErrorReply(.questionTooLarge, violation.description))
        }
        // Refused here too: stored, it would be sent while unlinked and refused by the broker with nobody told.
        if let violation = ShortText.violation(in: question) {
            return .error(ErrorReply(.invalidText, violation.description))
        }
        if let violation = PermissionChoice.impersonation(in: question.choices) {
            return .error(ErrorReply(.misleadingChoice, violation.description))
        }
        do {
            // Durable before anything else: an ask made while the broker is down goes out when it is back.
            try await store.enqueue(question, app: app)
        } catch {
            return .error(ErrorReply(.internalError, "child-device could not store the question"))
        }
        if context.isLinked {
            do {
                let reply = try await context.request(.ask(appBundleID: app, question: question))
                // Out of the outbox and, when nobody answered it yet, listed as waiting at once, before its pending
                // event comes (the app may name it right away): one transaction, so the reply waits on one commit.
                if case .askAccepted(let asked, nil) = reply {
                    try? await store.accepted(asked)
                } else {
                    try? await store.removeFromOutbox(question.id)
                }
                brokerTook()
                return reply
            } catch let error as ErrorReply where error.code != .brokerUnavailable {
                // Refused (an ask limit or the command rate included): the app learns why now, and it is not
                // retried.
                try? await store.removeFromOutbox(question.id)
                return .error(error)
            } catch is ErrorReply {
                // brokerUnavailable: linked, but the broker cannot store now; it stays queued and goes again soon.
                retryLater(context: context)
            } catch {
                // No reply in time: it stays in the outbox and is retried (on the next link, or in a second if the
                // link stays up, as when the broker restarted faster than the link noticed); the app's answer
                // arrives in `updates`.
                retryLater(context: context)
            }
        }
        // Ids from the last welcome (kept across restarts); "unlinked" before this device was ever welcomed.
        let (member, device) = await context.knownIdentity()
        let queued = AskedQuestion(
            question: question, childMemberID: member ?? "unlinked", appBundleID: app,
            askingDeviceID: device ?? "unlinked", askedAt: Date())
        return .askAccepted(queued, nil)
    }

    /// Sends every question still in the outbox; the broker's idempotency makes a resend harmless.
    public func flushOutbox(context: any DeviceContext) async {
        guard
            flushing.withLock({ state in
                if state.busy { state.again = true }
                defer { state.busy = true }
                return !state.busy
            })
        else { return }
        // A flush asked for while this one ran (a new link) runs after it: what this one missed is sent then.
        repeat {
            await flushOnce(context: context)
        } while flushing.withLock({ state in
            defer { state.again = false }
            state.busy = state.again
            return state.again
        })
    }

    private func flushOnce(context: any DeviceContext) async {
        for (app, question) in (try? await store.outbox()) ?? [] {
            if let violation = QuestionBudget.check(question) {
                // Queued by an older child-device: the broker would refuse it (or drop the link), so it never goes.
                context.logger.warning(
                    "dropping a queued question over its budget",
                    metadata: [
                        "question": "\(question.id)", "app": "\(app)", "error": "\(violation)",
                    ])
                try? await store.removeFromOutbox(question.id)
                continue
            }
            do {
                _ = try await context.request(.ask(appBundleID: app, question: question))
                try? await store.removeFromOutbox(question.id)
                brokerTook()
            } catch let error as ErrorReply where !error.code.isTransient {
                context.logger.warning(
                    "the broker refused a queued question",
                    metadata: [
                        "question": "\(question.id)", "error": "\(error)",
                    ])
                try? await store.removeFromOutbox(question.id)
            } catch is ErrorReply {
                // Transient: the broker's store is away, or this device is over its command rate, for now.
                retryLater(context: context)
                return
            } catch {
                // No reply: the next link flushes, or, while the link looks up, another try in a second.
                if context.isLinked { retryLater(context: context) }
                return
            }
        }
    }

    /// Flushes the outbox again after the current retry delay: the link is up, but the broker could not store (its
    /// database or disk is away) or did not answer in time (a slow disk, or a restart the link did not notice), and
    /// no new link will come to trigger a flush.
    private func retryLater(context: any DeviceContext) {
        let delay = retry.withLock { state -> Duration? in
            guard !state.scheduled else { return nil }
            state.scheduled = true
            defer { state.delay = min(state.delay * 2, Self.maxRetryDelay) }
            return state.delay
        }
        guard let delay else { return }
        context.addTask { [self] in
            let waited = (try? await Task.sleep(for: delay)) != nil
            retry.withLock { $0.scheduled = false }
            // Cancelled: the daemon is stopping, and its next run flushes the outbox once linked.
            if waited { await flushOutbox(context: context) }
        }
    }

    /// The broker stored a question: the next retry, if any, waits the shortest delay again.
    private func brokerTook() {
        retry.withLock { $0.delay = Self.firstRetryDelay }
    }

    // MARK: inbox

    /// Pushes the app's waiting responses to its connected clients (or to one of them).
    private func push(app: BundleID, context: any DeviceContext, only: [UInt8]? = nil) async {
        let targets = only.map { [$0] } ?? sessions.withLock { [now] in $0.routes(of: app, at: now()) }
        guard !targets.isEmpty else { return }
        for entry in (try? await store.inbox(of: app)) ?? [] {
            for target in targets {
                context.sendLocal(.appResponse(inboxID: entry.id, entry.asked, entry.resolution), to: target)
            }
        }
    }
}
