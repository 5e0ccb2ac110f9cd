import Foundation
import HearthFleet
import HearthProtocol
import Testing
import ZeroMQ

/// The broker hands a batch's replies to its socket loop grouped by device: over real CURVE connections each device
/// still gets one reply per command, in the order it sent them, while other devices' commands share its batches.
@Suite("Reply order under bursts", .serialized, .tags(.fleet))
struct ReplyOrderTests {
    @Test func burstsFromTwoDevicesAreAnsweredInOrder() async throws {
        let spec = FleetSpec(families: [
            .init(
                "rivera", members: [.organizer("sam", devices: ["sam-phone"]), .child("kai", devices: ["kai-phone"])])
        ])
        try await Fleet.with(spec) { fleet in
            let peers = [
                try await RawPeer.device("kai-phone", of: fleet), try await RawPeer.device("sam-phone", of: fleet),
            ]
            // Each burst is one hand-off to the peer's loop, so its commands reach the broker together.
            let count: UInt64 = 150
            for round in 0..<2 {
                for peer in peers {
                    let base = UInt64(round) * count / 2
                    peer.loop.send(
                        (1...count / 2).map { .init([MessageCodec.encode(.ping, requestID: base + $0)], on: 0) })
                }
            }
            var replies: [[Envelope]] = [[], []]
            let deadline = ContinuousClock.now + .seconds(20)
            while replies.contains(where: { $0.count < count }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                for (index, peer) in peers.enumerated() {
                    replies[index] += peer.take(on: 0).compactMap { $0.last.flatMap { try? MessageCodec.decode($0) } }
                }
            }
            for envelopes in replies {
                #expect(envelopes.map(\.requestID) == Array(1...count), "one reply per command, in command order")
                #expect(envelopes.allSatisfy { if case .pong = $0.message { true } else { false } })
            }
            for peer in peers { await peer.close() }
        }
    }
}
