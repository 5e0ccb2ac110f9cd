import DeviceRuntime
import Foundation
import HearthCore
import HearthProtocol
import Logging
import Synchronization

extension ParentBehavior {
    /// Pushes the notifications recorded since the last push to every watcher, and shows them on the desktop.
    func notify(context: any DeviceContext) async {
        guard
            let lowest = watch.withLock({ state -> UInt64? in
                defer { state.lowestUnpushed = nil }
                return state.lowestUnpushed
            })
        else { return }
        do {
            let fresh = try await store.notifications(after: lowest - 1, limit: Int.max)
            let now = ContinuousClock.now
            let targets = watch.withLock { state in
                state.watchers = state.watchers.filter { now - $0.value < Self.watcherLifetime }
                return Array(state.watchers.keys)
            }
            for target in targets {
                for notification in fresh { context.sendLocal(.parentNotification(notification), to: target) }
            }
        } catch {
            context.logger.error("reading notifications failed", metadata: ["error": "\(error)"])
        }
        await showOnDesktop(context: context)
    }

    func showOnDesktop(context: any DeviceContext) async {
        do {
            // Marked as shown before they are shown: a crash in between loses them rather than showing them twice.
            let unshown = try await store.takeUnshownOnDesktop()
            await desktop.show(unshown, logger: context.logger)
        } catch {
            context.logger.error("reading notifications failed", metadata: ["error": "\(error)"])
        }
    }

    /// Registers `routingID` for pushes; with `after`, first pushes what it missed since (at most the backlog).
    func startWatching(after: UInt64?, routingID: [UInt8], context: any DeviceContext) async -> Message {
        watch.withLock { state in
            if state.watchers[routingID] == nil, state.watchers.count >= Self.maxWatchers,
                let oldest = state.watchers.min(by: { $0.value < $1.value })?.key
            {
                state.watchers[oldest] = nil
            }
            state.watchers[routingID] = .now
        }
        do {
            let head = try await store.notificationHead()
            if let after, after < head {
                let backlog = UInt64(Wire.maxNotificationBacklog)
                let missed = try await store.notifications(after: max(after, head > backlog ? head - backlog : 0))
                for notification in missed { context.sendLocal(.parentNotification(notification), to: routingID) }
            }
            return .parentWatching(head: head)
        } catch {
            return .error(ErrorReply(.internalError, "parent-device could not read its notifications"))
        }
    }
}
