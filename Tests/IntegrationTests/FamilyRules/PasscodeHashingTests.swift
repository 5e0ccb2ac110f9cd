import Foundation
import HearthFleet
import HearthProtocol
import Testing

/// A passcode's scrypt runs beside the broker's pipeline: while one is being hashed, at a cost set high for the test
/// (family-broker's hidden `--passcode-cost`), another family's commands are answered.
@Suite("Passcode hashing beside the pipeline", .serialized, .tags(.fleet, .slow))
struct PasscodeHashingTests {
    static let spec = FleetSpec(families: [
        .init(
            "appleseed",
            members: [.organizer("alice", devices: ["alice-phone"]), .child("emma", devices: ["emma-tablet"])]),
        .init(
            "other", members: [.organizer("zed", devices: ["zed-phone"]), .child("zoe", devices: ["zoe-tablet"])]),
    ])

    @Test func anotherFamilysCommandsAreAnsweredWhileAPasscodeIsHashed() async throws {
        // 2^18: 256 MiB and several seconds per hash in a debug build (the default, 2^15, takes about one), a good
        // part of one in a release build.
        try await Fleet.with(Self.spec, brokerArguments: ["--passcode-cost", "18"]) { fleet in
            let alice = try await RawPeer.device("alice-phone", of: fleet)
            let zed = try await RawPeer.device("zed-phone", of: fleet)
            _ = try await alice.request(.ping, requestID: 1, timeout: .seconds(10))
            _ = try await zed.request(.ping, requestID: 1, timeout: .seconds(10))

            alice.send(.setPasscode(childID: "emma", passcode: "2468"), requestID: 7)
            // The other family's commands, one after another, until the passcode is answered.
            var before = 0
            var passcode: Message?
            var id: UInt64 = 10
            while passcode == nil, id < 400 {
                try await Task.sleep(for: .milliseconds(50))
                id += 1
                let reply = try await zed.request(
                    id % 2 == 0 ? .ping : .getLimits(childID: "zoe"), requestID: id, timeout: .seconds(120))
                if case .error = reply { Issue.record("zed's command refused: \(reply)") }
                passcode =
                    alice.take(on: 0).compactMap { $0.last.flatMap { try? MessageCodec.decode($0) } }
                    .first { $0.requestID == 7 }?.message
                if passcode == nil { before += 1 }
            }
            #expect(before >= 3, "zed's commands answered while the passcode was hashed: \(before)")
            #expect(passcode == .ok, "the passcode is set, its hash at its cost")
            await alice.close()
            await zed.close()
        }
    }
}
