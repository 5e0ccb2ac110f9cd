import DeclaredAgeRange
import Foundation
import HearthCore
import HearthFleet
import HearthService
import Testing

/// Apple's `AgeRangeService.Error.invalidAccount` where Apple documents it: no account is signed in on the device, or
/// the signed-in account cannot share an age range. Hearth's equivalents, through the real daemons: a device whose
/// key no family enrolled (no account), and a member with no birth date on record (an account without an age).
@Suite("Error.invalidAccount where Apple documents it, against real daemons", .serialized, .tags(.fleet))
struct InvalidAccountTests {
    static let bundleID = "com.example.landmarks"
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .init("alice", role: .organizer, birthDate: "1985-01-01", devices: ["alice-phone"]),
                .init("noa", role: .adult, birthDate: "", devices: ["noa-laptop"]),
            ])
    ])

    /// What the app's `requestAgeRange(ageGates:_:_:in:)` threw, as the app names Apple's cases.
    @MainActor
    static func thrown(by service: AgeRangeService) async -> String {
        do {
            _ = try await LandmarksApp(service: service).range(gates: 18)
            return "a range"
        } catch {
            return LandmarksApp.message(for: error)
        }
    }

    @Test func aDeviceNoFamilyEnrolledAndAMemberWithoutABirthDateGetInvalidAccount() async throws {
        try await Fleet.with(Self.family) { fleet in
            let noa = fleet.ageRange(Self.bundleID, on: "noa-laptop")
            #expect(await Self.thrown(by: noa) == "invalidAccount", "an account without an age")
            await noa.close()

            // A child-device whose key is in no family file: the broker's handshake refuses it, and it says so.
            let socket = fleet.directory + "/run/stranger.sock"
            let stranger = try SpawnedProcess.launch(
                try BinaryLocator.directory() + "/child-device",
                arguments: [
                    "--key-file", fleet.directory + "/keys/stranger.key", "--state",
                    fleet.directory + "/devices/stranger", "--socket", socket, "--broker-ready", fleet.readyFile,
                ])
            let service = AgeRangeService(socketPath: socket, bundleID: Self.bundleID, timeout: .seconds(2))
            // Stopped however the checks end: a test must not leave a daemon behind.
            var failure: (any Error)?
            do {
                try await fleet.eventually("the stranger's daemon is up") {
                    FileManager.default.fileExists(atPath: socket)
                }
                // Until its handshake is refused the daemon only knows the broker is not answering (`network`).
                try await fleet.eventually("the stranger learns no family enrolled it") {
                    await Self.thrown(by: service) == "invalidAccount"
                }
            } catch {
                failure = error
            }
            await service.close()
            kill(stranger.pid, SIGTERM)
            _ = await stranger.waitUntilExit()
            if let failure { throw failure }
        }
    }
}
