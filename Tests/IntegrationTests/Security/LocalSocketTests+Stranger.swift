import Foundation
import HearthFleet
import HearthService
import HearthTransport
import Testing

/// The same attacks by a process really running as another user (`nobody`, through `setpriv`): the `/tmp/hearth-UID`
/// fallback of a user without `XDG_RUNTIME_DIR`, and an abstract socket, which has no file to check.
extension LocalSocketTests {
    static let nobody: uid_t = 65534

    /// Runs `arguments` as `nobody`, without `XDG_RUNTIME_DIR` (as a user on a console without a session).
    static func asNobody(_ arguments: [String]) -> [String] {
        ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--", "/usr/bin/env", "-u", "XDG_RUNTIME_DIR"]
            + arguments
    }

    static var canSwitchUser: Bool {
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    }

    @Test(.enabled(if: canSwitchUser, "running a process as nobody needs root and setpriv (CI runs as root)"))
    func theTmpFallbackPlantedByAnotherUserIsRefusedByHearthctl() async throws {
        let fallback = "/tmp/hearth-\(Self.nobody)"
        try? FileManager.default.removeItem(atPath: fallback)
        try FileManager.default.createDirectory(
            atPath: fallback, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let fake = try FakeListener(path: fallback + "/parent-device.sock")
        defer {
            fake.stop()
            try? FileManager.default.removeItem(atPath: fallback)
        }
        for path in [fallback, fake.path] { chown(path, Self.stranger, Self.stranger) }
        let hearthctl = try BinaryLocator.directory() + "/hearthctl"
        let run = try await ExecutableRun.run(
            path: "/usr/bin/setpriv", Self.asNobody([hearthctl, "parent", "passcode", "emma"]), input: "975310\n",
            timeout: .seconds(60))
        #expect(run.status != 0)
        #expect(run.output.contains("\(fallback): owned by uid \(Self.stranger)"), "\(run.output)")
        #expect(run.output.contains("XDG_RUNTIME_DIR or HEARTH_RUNTIME_DIR"), "\(run.output)")
        #expect(fake.connections == 0 && fake.bytesReceived == 0, "the passcode went to the planted socket")
    }

    @Test(.enabled(if: canSwitchUser, "running a process as nobody needs root and setpriv (CI runs as root)"))
    func aListenerRunningAsAnotherUserIsRefusedByItsCredentials() async throws {
        let root = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        chmod(root, 0o755)
        let home = root + "/nobody"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        chown(home, Self.nobody, Self.nobody)
        _ = try KeyFiles.generate(at: root + "/broker")
        // An abstract name: anyone may bind it, and no file says whose it is.
        let name = "@hearth-stranger-\(UUID().uuidString.prefix(8))"
        let child = try BinaryLocator.directory() + "/child-device"
        let daemon = try SpawnedProcess.launch(
            "/usr/bin/setpriv",
            arguments: Self.asNobody([
                child, "--key-file", home + "/c.key", "--state", home + "/state", "--socket", name, "--brokers",
                "tcp://127.0.0.1:1 tcp://127.0.0.1:2 \(root)/broker.pub",
            ]), output: root + "/stranger.log", append: false)
        defer { daemon.stopBlocking() }
        let deadline = ContinuousClock.now + .seconds(30)
        while !(try String(contentsOfFile: "/proc/net/unix", encoding: .utf8).contains(name)) {
            guard daemon.isRunning, ContinuousClock.now < deadline else {
                let log = try String(contentsOfFile: root + "/stranger.log", encoding: .utf8)
                throw FleetError("the stranger's child-device did not bind \(name): \(log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let asked = await Self.askError(name)
        #expect(asked.contains("the process listening on it runs as uid \(Self.nobody)"), "\(asked)")
    }
}
