import Foundation
import Testing

/// hearthctl's message when the daemon it needs is not running names a way to start that daemon and the option that
/// points hearthctl at it: the broker's admin commands take --broker-state, not a device daemon's flags.
@Suite("hearthctl start hints")
struct HearthctlStartHintTests {
    static let nowhere = FileManager.default.temporaryDirectory.path + "/hearth-no-daemon-\(UUID().uuidString)"

    @Test func adminNamesTheBrokersOwnFlags() async throws {
        let run = try await hearthctl(["admin", "show", "--broker-state", Self.nowhere])
        #expect(run.status != 0)
        #expect(run.output.contains("family-broker is not running"), "\(run.output)")
        #expect(run.output.contains("--broker-state"), "\(run.output)")
        #expect(run.output.contains("family-broker --config"), "\(run.output)")
        #expect(!run.output.contains("--broker-ready"), "\(run.output)")
    }

    @Test func aDeviceCommandNamesItsDaemon() async throws {
        let run = try await hearthctl(["parent", "list", "--socket", Self.nowhere + "/parent-device.sock"])
        #expect(run.status != 0)
        #expect(run.output.contains("`parent-device --key-file KEY"), "\(run.output)")
        #expect(run.output.contains("--socket"), "\(run.output)")
    }

    /// `age watch` used to wait for ever for a daemon that was not running.
    @Test func ageWatchWithoutADaemonSaysSoAtOnce() async throws {
        let socket = Self.nowhere + "/child-device.sock"
        let run = try await ExecutableRun.run(
            "hearthctl", ["age", "watch", "--socket", socket, "--count", "1"], timeout: .seconds(60))
        #expect(run.status != 0)
        #expect(run.output.contains("no socket at \(socket)"), "\(run.output)")
    }

    @Test func ageCommandsNameBothDeviceDaemons() async throws {
        let run = try await hearthctl(["age", "prompts", "--socket", Self.nowhere + "/child-device.sock"])
        #expect(run.status != 0)
        #expect(run.output.contains("Start child-device or parent-device"), "\(run.output)")
        #expect(!run.output.contains("`the device daemon"), "\(run.output)")
    }
}
