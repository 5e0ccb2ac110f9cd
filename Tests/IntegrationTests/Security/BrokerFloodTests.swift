import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import PermissionKit
import Testing
import ZeroMQ

/// Enrolled devices that flood the broker: commands past the per-device rate get refusals, then silence, while the rest
/// of the family is served; subscription floods are capped and never widen what a device receives.
@Suite("Broker under floods", .serialized, .tags(.fleet, .slow))
struct BrokerFloodTests {
    static func question(_ handle: String) -> PermissionQuestion<CommunicationTopic> {
        var topic = CommunicationTopic(personInformation: [
            PersonInformation(handle: CommunicationHandle(value: handle, kind: .custom))
        ])
        topic.actions = [.message]
        return PermissionQuestion(communicationTopic: topic)
    }

    /// The child asks, the organizer approves, and the app receives the response: the whole family path works.
    static func familyIsServed(_ fleet: Fleet, handle: String) async throws {
        let app = fleet.app("com.example.chat", on: "emma-tablet")
        let responses = ResponseCollector(app)
        let console = try await fleet.parent(on: "alice-phone")
        let asked = question(handle)
        try await app.ask(asked)
        _ = try await console.waitForQuestion(asked.id)
        _ = try await console.approve(asked.id)
        try await fleet.eventually("the app receives its response") { !responses.responses(for: asked.id).isEmpty }
        responses.cancel()
        await console.close()
        await app.close()
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    @Test func aCommandFloodGetsRefusalsThenSilenceWhileTheFamilyIsServed() async throws {
        let spec = FleetSpec(families: [
            .init(
                "appleseed",
                members: [
                    .organizer("alice", devices: ["alice-phone"]),
                    .child("emma", devices: ["emma-tablet", "emma-phone"]),
                ])
        ])
        // 20 commands a second per device, bursts of 100.
        try await Fleet.with(spec, brokerArguments: ["--device-rate", "20"]) { fleet in
            let flooder = try await RawPeer.device("emma-phone", of: fleet)
            let start = ContinuousClock.now
            let flood = Task {
                var sent: UInt64 = 0
                while start.duration(to: .now) < .seconds(3) {
                    for _ in 0..<40 {
                        sent += 1
                        flooder.send(.ping, requestID: sent)
                    }
                    try? await Task.sleep(for: .milliseconds(10))
                }
                return sent
            }
            // Another device of the same child, and the parent, while the flood runs.
            try await Self.familyIsServed(fleet, handle: "pal")
            #expect(try await fleet.status(of: "emma-tablet").linked)
            #expect(try await fleet.status(of: "alice-phone").linked)
            let sent = await flood.value
            let elapsed = Self.seconds(start.duration(to: .now))
            try await Task.sleep(for: .milliseconds(500))

            var pongs = 0
            var refusals = 0
            for frames in flooder.take(on: 0) {
                guard let frame = frames.last, let envelope = try? MessageCodec.decode(frame) else {
                    Issue.record("undecodable reply")
                    continue
                }
                #expect((1...sent).contains(envelope.requestID), "a reply names a request that was sent")
                switch envelope.message {
                case .pong: pongs += 1
                case .error(let error) where error.code == .rateLimited: refusals += 1
                default: Issue.record("unexpected reply to a ping: \(envelope.message)")
                }
            }
            #expect(pongs >= 80, "the burst allowance was served: \(pongs)")
            #expect(
                Double(pongs) <= 100 + 20 * (elapsed + 1), "\(pongs) pongs in \(elapsed) s at 20/s with a burst of 100")
            #expect(refusals >= 1, "the flooder is told it is rate limited")
            #expect(Double(refusals) <= elapsed + 2, "at most one refusal a second: \(refusals) in \(elapsed) s")
            #expect(
                UInt64(pongs + refusals) < sent / 2, "the rest is silence: \(pongs + refusals) replies to \(sent) pings"
            )

            // Once it stops, the device is served again.
            try await Task.sleep(for: .seconds(1))
            guard case .pong = try await flooder.request(.ping, requestID: sent + 1) else {
                Issue.record("the flooder is not served after stopping")
                return
            }
            await flooder.close()
        }
    }

    @Test func aSubscriptionFloodIsCappedAndNeverWidensWhatADeviceReceives() async throws {
        let spec = FleetSpec(families: [
            .init(
                "appleseed",
                members: [.organizer("alice", devices: ["alice-phone"]), .child("emma", devices: ["emma-tablet"])]),
            .init("other", members: [.organizer("zed", devices: ["zed-phone"])]),
        ])
        try await Fleet.with(spec) { fleet in
            let loop = try Self.subscriptionFlooder(fleet)
            try await loop.start()
            let received = Recorder<(socket: Int, frames: [[UInt8]])>()
            let inbound = loop.inbound
            let reader = Task {
                for await batch in inbound {
                    received.append(contentsOf: batch.map { ($0.socket, $0.message.frames) })
                }
            }

            let start = ContinuousClock.now
            // What a device may send (everything, its own topic), over and over: anything else cuts it off
            // (HostileDeviceTests).
            let own: [[UInt8]] = [[], Wire.topic(for: "zed")]
            for i in 0..<5000 {
                // Mostly subscriptions; some unsubscriptions.
                let first: UInt8 = i % 10 == 3 ? 0 : 1
                loop.send([[first] + own[i % 2]], on: 1)
                if i % 250 == 0 { try await Task.sleep(for: .milliseconds(20)) }
            }
            // The victims' family goes on, with events on emma's and alice's topics while the flooder listens.
            try await Self.familyIsServed(fleet, handle: "secret-friend")
            loop.send([MessageCodec.encode(.ping, requestID: 42)], on: 0)
            try await fleet.eventually("the broker answers the flooder's ping") {
                received.all.contains { $0.socket == 0 }
            }
            try await Task.sleep(for: .seconds(1))
            let elapsed = Self.seconds(start.duration(to: .now))

            let items = received.all
            let replies = items.filter { $0.socket == 0 }.compactMap {
                $0.frames.last.flatMap { try? MessageCodec.decode($0) }
            }
            #expect(replies.first == Envelope(requestID: 42, message: .pong(head: 0)), "zed's own head, promptly")
            let egress = items.filter { $0.socket == 1 }
            let strays = egress.filter { !($0.frames.count == 2 && $0.frames[0] == Wire.topic(for: "zed")) }
            #expect(strays.isEmpty, "only zed's topic ever arrives: \(strays.prefix(3).map(\.frames))")
            let heartbeats = egress.filter {
                if case .heartbeat? = (try? MessageCodec.decode($0.frames[1]))?.message { true } else { false }
            }
            #expect(heartbeats.count == egress.count, "and only heartbeats: zed's log is empty")
            // Each granted subscription is greeted by a heartbeat; beside the 2/s periodic ones, at most 20 grants and one a
            // second follow, not one per subscription message.
            let bound = 20 + 3 * (elapsed + 1) + 5
            #expect(!heartbeats.isEmpty)
            #expect(
                Double(heartbeats.count) <= bound,
                "\(heartbeats.count) heartbeats in \(elapsed) s after 4,000 subscriptions")
            #expect(
                try String(contentsOfFile: fleet.broker.logFile, encoding: .utf8).contains("subscription flood ignored")
            )
            reader.cancel()
            await loop.stop()
        }
    }

    /// zed's phone as a raw peer: a DEALER on the broker's ingress and an XSUB on its egress, both CURVE clients.
    static func subscriptionFlooder(_ fleet: Fleet) throws -> SocketLoop {
        let broker = try RawPeer.readyFile(fleet.readyFile)
        let keys = try KeyFiles.loadPair(secretPath: fleet.directory + "/keys/zed-phone.key")
        @Sendable func secure(_ socket: ZMQSocket) throws {
            try socket.setLinger(milliseconds: 0)
            try socket.makeCurveClient(serverPublicKey: broker.key, keys: keys)
        }
        // XSUB, not SUB: it filters nothing locally, so the test sees exactly what the broker sends the pipe.
        return try SocketLoop(
            name: "subscription-flooder",
            sockets: [
                .init(.dealer) { socket in
                    try secure(socket)
                    try socket.connect(broker.ingress)
                },
                .init(.xsub) { socket in
                    try secure(socket)
                    try socket.connect(broker.egress)
                },
            ])
    }
}
