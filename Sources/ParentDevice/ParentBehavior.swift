public import DeviceRuntime
import Foundation
public import GRDB
public import HearthCore
public import HearthProtocol
import Logging
import Synchronization

/// The parent-device daemon's behaviour: keeps the questions waiting for this parent, with all their metadata (in
/// its `ParentStore`), and lets a person list and answer them over the local control socket.
public final class ParentBehavior: DeviceBehavior {
    public let name = "parent-device"
    let store: ParentStore
    let desktop: DesktopNotifier
    let page: ParentPage?

    struct Watch: ~Copyable {
        /// Local clients that asked for notifications (`parentWatch`), with when they last did.
        var watchers: [[UInt8]: ContinuousClock.Instant] = [:]
        /// The lowest notification recorded by events applied since the last push.
        var lowestUnpushed: UInt64?
        var shownOnceLinked = false
    }

    let watch = Mutex(Watch())
    /// Each batch of applied events, told to whoever waits for one (the page, after an answer).
    let appliedEvents = AppliedSignal()
    static var maxWatchers: Int { 1024 }
    /// A watcher that has not renewed its watch for this long is forgotten (clients renew every few seconds).
    static var watcherLifetime: Duration { .seconds(60) }

    public init(store: ParentStore, desktop: DesktopNotifier = DesktopNotifier(), page: ParentPage? = nil) {
        self.store = store
        self.desktop = desktop
        self.page = page
    }

    public func serve(context: any DeviceContext) async {
        await page?.serve(behavior: self, context: context)
    }

    public func apply(_ event: Event, in db: Database) throws {
        guard let id = try ParentStore.apply(event, in: db) else { return }
        watch.withLock { $0.lowestUnpushed = min($0.lowestUnpushed ?? id, id) }
    }

    public func applied(_ events: [Event], context: any DeviceContext) async {
        appliedEvents.signal()
        log(events, context: context)
        await notify(context: context)
    }

    private func log(_ events: [Event], context: any DeviceContext) {
        for event in events {
            switch event.body {
            case .questionPending(let asked):
                context.logger.info(
                    "question waiting",
                    metadata: [
                        "question": "\(asked.question.id)", "child": "\(asked.childMemberID)",
                        "app": "\(asked.appBundleID)",
                    ])
            case .questionResolved(let asked, let resolution):
                context.logger.info(
                    "question answered",
                    metadata: [
                        "question": "\(asked.question.id)", "choice": "\(resolution.choice.id)",
                        "by": "\(resolution.answeredBy ?? "-")", "reason": "\(resolution.reason)",
                    ])
            case .questionReminder(let asked):
                context.logger.info("question expires soon", metadata: ["question": "\(asked.question.id)"])
            case .historyRecorded(let entry):
                context.logger.info(
                    "history recorded",
                    metadata: [
                        "child": "\(entry.childMemberID)", "kind": "\(entry.kind.name)", "by": "\(entry.actor ?? "-")",
                    ])
            case .handlesChanged, .ageRange, .omitted: break
            }
        }
    }

    public func linked(context: any DeviceContext) async {
        // Notifications recorded but not shown before a restart are shown once, now.
        let first = watch.withLock { state in
            defer { state.shownOnceLinked = true }
            return !state.shownOnceLinked
        }
        if first { await showOnDesktop(context: context) }
    }

    public func handleLocal(
        _ envelope: Envelope, from routingID: [UInt8], context: any DeviceContext
    ) async -> Message? {
        switch envelope.message {
        case .listPending:
            do {
                // Oldest first, as many as fit in one frame: a person answers and lists again.
                return .pendingList(try await store.pending(maxBytes: Wire.maxReplyBodyBytes))
            } catch {
                return .error(ErrorReply(.internalError, "parent-device could not read its pending list"))
            }
        case .parentWatch(let after):
            return await startWatching(after: after, routingID: routingID, context: context)
        case .answer, .setLimits, .getLimits, .editContacts, .revokeApproval, .setPasscode, .listApproved, .history:
            // A parent's commands: the broker checks that this device's member may give them.
            return await context.forward(envelope.message)
        default:
            let type = String(envelope.message.typeCode, radix: 16)
            return .error(ErrorReply(.unknownMessageType, "parent-device does not handle message type 0x\(type)"))
        }
    }
}
