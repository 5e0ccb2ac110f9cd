import Foundation
import HearthCore
import HearthProtocol
import Testing

@testable import PermissionKit

/// A response is acknowledged to the daemon when the app has handled it: when its loop asks for the next element,
/// or when it calls `acknowledge(_:)`; never merely because the library received or yielded it.
@Suite(.serialized) struct AcknowledgeOnNextTests {
    @Test func aResponseIsAcknowledgedWhenTheNextElementIsAskedFor() async throws {
        try await withDaemon { daemon, limits in
            var iterator = limits.responses(for: CommunicationTopic.self).makeAsyncIterator()
            #expect(await eventually(timeout: .seconds(30)) { daemon.connectedApps == 1 })
            let (asked, resolution) = answered(uuid(1), handle: "bob")
            daemon.push(inboxID: 61, .init(asked: asked, resolution: resolution))
            let first = await iterator.next(isolation: nil)
            #expect(first?.question.id == uuid(1))
            // Taken, still being handled: the daemon keeps it.
            try await Task.sleep(for: .milliseconds(200))
            #expect(daemon.acks.isEmpty)
            #expect(limits.hub.heldCount == 1)
            // The app asks for the next one: the first is handled.
            let (asked2, resolution2) = answered(uuid(2), handle: "carol")
            daemon.push(inboxID: 62, .init(asked: asked2, resolution: resolution2))
            let second = await iterator.next(isolation: nil)
            #expect(second?.question.id == uuid(2))
            #expect(await eventually(timeout: .seconds(30)) { daemon.acks == [61] })
            // The app acknowledges the second itself and leaves.
            if let second { limits.acknowledge(second) }
            #expect(await eventually(timeout: .seconds(30)) { daemon.acks == [61, 62] })
            #expect(limits.hub.heldCount == 0)
        }
    }

    @Test func aResponseLeftUnhandledIsNotAcknowledgedAndComesToTheNextIteration() async throws {
        try await withDaemon { daemon, limits in
            let (asked, resolution) = answered(uuid(3), handle: "bob")
            do {
                var iterator = limits.responses(for: CommunicationTopic.self).makeAsyncIterator()
                #expect(await eventually { daemon.connectedApps == 1 })
                daemon.push(inboxID: 71, .init(asked: asked, resolution: resolution))
                #expect(await iterator.next(isolation: nil)?.question.id == uuid(3))
            }
            // The iteration ended (a `break`, a thrown error) before it asked for more: not handled.
            #expect(await eventually { !limits.hub.hasSubscribers })
            #expect(limits.hub.pendingCount == 1)
            #expect(daemon.acks.isEmpty)
            // A re-push (a reconnect) does not acknowledge it either.
            daemon.push(inboxID: 71, .init(asked: asked, resolution: resolution))
            try await Task.sleep(for: .milliseconds(100))
            #expect(daemon.acks.isEmpty)

            let next = Collector(limits.responses(for: CommunicationTopic.self))
            #expect(await eventually { next.values.map(\.question.id) == [uuid(3)] })
            #expect(await eventually { daemon.acks == [71] })
            next.cancel()
        }
    }

    @Test func aResponseHeldByTwoIterationsIsAcknowledgedWhenBothMovedOn() async throws {
        try await withDaemon { daemon, limits in
            var slow = limits.responses(for: CommunicationTopic.self).makeAsyncIterator()
            let fast = Collector(limits.responses(for: CommunicationTopic.self))
            #expect(await eventually { daemon.connectedApps == 1 })
            let (asked, resolution) = answered(uuid(4), handle: "bob")
            daemon.push(inboxID: 81, .init(asked: asked, resolution: resolution))
            #expect(await slow.next(isolation: nil)?.question.id == uuid(4))
            #expect(await eventually { fast.values.count == 1 })
            try await Task.sleep(for: .milliseconds(100))
            #expect(daemon.acks.isEmpty, "one iteration still handles it")
            let (asked2, resolution2) = answered(uuid(5), handle: "carol")
            daemon.push(inboxID: 82, .init(asked: asked2, resolution: resolution2))
            #expect(await slow.next(isolation: nil)?.question.id == uuid(5))
            #expect(await eventually { daemon.acks == [81] })
            fast.cancel()
        }
    }
}
