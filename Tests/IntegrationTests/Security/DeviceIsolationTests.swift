import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import PermissionKit
import Testing
import ZeroMQ

/// Only enrolled keys get in, and each device sees only its own member's events.
@Suite("Device identity and isolation", .serialized, .tags(.fleet))
struct DeviceIsolationTests {
    static let families = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                .child("emma", devices: ["emma-tablet"]),
            ]),
        .init(
            "other",
            members: [
                .organizer("zed", devices: ["zed-phone"]),
                .child("yuri", devices: ["yuri-tablet"]),
            ]),
    ])

    @Test func unknownKeyNeitherConnectsNorReceives() async throws {
        try await Fleet.with(Self.families) { fleet in
            let broker = try RawPeer.readyFile(fleet.readyFile)
            let stranger = try await RawPeer(
                ingress: broker.ingress, egress: broker.egress, brokerKey: broker.key, keys: try CurveKeyPair.generate()
            )
            let zedKeys = try KeyFiles.loadPair(secretPath: fleet.directory + "/keys/zed-phone.key")
            let yuriKeys = try KeyFiles.loadPair(secretPath: fleet.directory + "/keys/yuri-tablet.key")
            // Enrolled, but of another family; and a child of that family, both subscribing to everything.
            let zed = try await RawPeer(
                ingress: broker.ingress, egress: broker.egress, brokerKey: broker.key, keys: zedKeys)
            let yuri = try await RawPeer(
                ingress: broker.ingress, egress: broker.egress, brokerKey: broker.key, keys: yuriKeys)
            stranger.send(.hello(minVersion: 1, maxVersion: 1))
            zed.send(.hello(minVersion: 1, maxVersion: 1))

            // Traffic in the victim family while they listen.
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            var topic = CommunicationTopic(personInformation: [
                PersonInformation(handle: CommunicationHandle(value: "secret-friend", kind: .custom))
            ])
            topic.actions = [.message]
            let question = PermissionQuestion(communicationTopic: topic)
            try await app.ask(question)
            let alice = try await fleet.parent(on: "alice-phone")
            _ = try await alice.waitForQuestion(question.id)
            try await alice.approve(question.id)
            try await Task.sleep(for: .seconds(1.5))

            #expect(stranger.messages(on: 0).isEmpty, "an unknown key gets no reply")
            #expect(stranger.messages(on: 1).isEmpty, "an unknown key receives no event")
            let welcome = zed.messages(on: 0).first
            guard case .welcome(_, _, let member, _, _, _) = welcome else {
                Issue.record("an enrolled key is welcomed, got \(String(describing: welcome))")
                return
            }
            #expect(member == "zed", "the broker names the member from the key, not from the message")
            for peer in [zed, yuri] {
                // Only heartbeats of their own member ever arrive: no event of the other family.
                #expect(peer.messages(on: 1).allSatisfy { if case .heartbeat = $0 { true } else { false } })
            }
            #expect(zed.topics.allSatisfy { $0 == Wire.topic(for: "zed") })
            #expect(yuri.topics.allSatisfy { $0 == Wire.topic(for: "yuri") })
            #expect(!zed.topics.isEmpty, "the probe itself works: zed gets its own heartbeats")

            for peer in [stranger, zed, yuri] { await peer.close() }
            await alice.close()
            await app.close()
        }
    }

    @Test func childDeviceWithUnenrolledKeyNeverLinks() async throws {
        try await Fleet.with(Self.families) { fleet in
            // A real child-device daemon with a key the broker does not know.
            let intruder = try UnenrolledDevice(in: fleet)
            defer { intruder.stop() }
            let socket = intruder.socket
            let app = CommunicationLimits(socketPath: socket, bundleID: "com.example.chat", timeout: .seconds(1))
            try await fleet.eventually("the intruder's daemon is up") { FileManager.default.fileExists(atPath: socket) }
            try await Task.sleep(for: .seconds(2))
            let known = await app.knownHandles(in: [CommunicationHandle(value: "secret-friend", kind: .custom)])
            #expect(known.isEmpty)
            // Its question is only queued locally: the broker never accepts it, so no parent sees it.
            var topic = CommunicationTopic(personInformation: [
                PersonInformation(handle: CommunicationHandle(value: "x", kind: .custom))
            ])
            topic.actions = [.message]
            let question = PermissionQuestion(communicationTopic: topic)
            try? await app.ask(question)
            try await Task.sleep(for: .seconds(1))
            let alice = try await fleet.parent(on: "alice-phone")
            #expect(try await alice.pending().isEmpty)
            await alice.close()
            await app.close()
        }
    }
}
