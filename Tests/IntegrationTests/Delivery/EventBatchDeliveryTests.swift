import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import PermissionKit
import Testing

/// A parent's approval gives the child two events in one commit (the resolution, the new handle): a member whose
/// devices all negotiated version 2 gets them in one `eventBatch` frame, one that has a device of version 1 gets two
/// `event` frames; the real child-device daemon beside the probe delivers the response to its app once either way.
@Suite("Event batches across real daemons", .serialized, .tags(.fleet))
struct EventBatchDeliveryTests {
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                .child("emma", devices: ["emma-tablet"]),
            ])
    ])

    /// Kinds of the events in each frame the probe's SUB received (heartbeats left out).
    static func eventFrames(_ peer: RawPeer) -> [[UInt8]] {
        peer.messages(on: 1).compactMap { message in
            switch message {
            case .event(let event): [event.body.kindCode]
            case .eventBatch(let events): events.map(\.body.kindCode)
            default: nil
            }
        }
    }

    @Test(arguments: [(UInt8(2), true), (1, false)])
    func anApprovalReachesTheChild(helloVersion: UInt8, batched: Bool) async throws {
        try await Fleet.with(Self.family) { fleet in
            let peer = try await RawPeer.device("emma-tablet", of: fleet)
            let welcome = try await peer.request(.hello(minVersion: 1, maxVersion: helloVersion), requestID: 1)
            guard case .welcome(let version, _, let member, _, _, _) = welcome else {
                Issue.record("expected a welcome, got \(welcome)")
                return
            }
            #expect(version == helloVersion && member == "emma")
            try await fleet.eventually("the probe's subscription is granted") {
                peer.messages(on: 1).contains { if case .heartbeat = $0 { true } else { false } }
            }
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = ResponseCollector(app)
            let alice = try await fleet.parent(on: "alice-phone")
            var topic = CommunicationTopic(personInformation: [
                PersonInformation(handle: CommunicationHandle(value: "batch-friend", kind: .custom))
            ])
            topic.actions = [.message]
            let question = PermissionQuestion(communicationTopic: topic)
            try await app.ask(question)
            _ = try await alice.waitForQuestion(question.id)
            let log = fleet.directory + "/logs/emma-tablet.log"
            let logBefore = (try? Data(contentsOf: URL(fileURLWithPath: log)).count) ?? 0
            _ = try await alice.approve(question.id)
            try await fleet.eventually("the child's app gets its response") {
                responses.responses(for: question.id).count == 1
            }
            try await fleet.eventually("the probe gets the resolution and the new handle") {
                Self.eventFrames(peer).joined().contains(3)
            }
            // questionPending (1) alone from the ask; questionResolved (2) and handlesChanged (3) from the answer.
            #expect(Self.eventFrames(peer) == (batched ? [[1], [2, 3]] : [[1], [2], [3]]))
            #expect(await app.isKnownHandle(CommunicationHandle(value: "batch-friend", kind: .custom)))
            // The daemon applied the answer's events as pub/sub brought them: a daemon that could not read the frame
            // would have caught up by sync at its next ping.
            let logAfter = try Data(contentsOf: URL(fileURLWithPath: log)).dropFirst(logBefore)
            #expect(!String(decoding: logAfter, as: UTF8.self).contains("caught up by sync"))
            try await Task.sleep(for: .seconds(1))
            #expect(responses.responses(for: question.id).count == 1, "delivered to the app exactly once")
            await peer.close()
            await alice.close()
            await app.close()
            responses.cancel()
        }
    }
}
