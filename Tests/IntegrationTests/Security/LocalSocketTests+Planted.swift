import Foundation
import HearthCore
import HearthFleet
import HearthService
import HearthTransport
import ParentKit
import PermissionKit
import Testing

/// Another local user who plants a runtime directory or a socket where the apps look for their daemon would answer
/// the child's apps, show the parent fake questions and read the passcodes typed into hearthctl: every client checks
/// the directory, the socket file and the listener's user before it sends anything.
extension LocalSocketTests {
    static func question() -> PermissionQuestion<CommunicationTopic> {
        var topic = CommunicationTopic(personInformation: [
            PersonInformation(handle: CommunicationHandle(value: "pal", kind: .custom))
        ])
        topic.actions = [.message]
        return PermissionQuestion(communicationTopic: topic)
    }

    /// What PermissionKit says when asked to ask through the daemon at `socket`.
    static func askError(_ socket: String) async -> String {
        let app = CommunicationLimits(socketPath: socket, bundleID: "com.example.chat", timeout: .seconds(5))
        defer { Task { await app.close() } }
        do {
            try await app.ask(question())
            return "asked"
        } catch {
            return "\(error)"
        }
    }

    /// hearthctl setting a child's Screen Time passcode through the parent-device socket at `socket`.
    static func setPasscode(_ socket: String) async throws -> (status: Int32, output: String) {
        try await ExecutableRun.run(
            "hearthctl", ["parent", "passcode", "emma", "--socket", socket], input: "975310\n", timeout: .seconds(60))
    }

    /// ParentKit iterates `updates` from the daemon at `socket` until `done` says stop.
    static func watch(_ socket: String) -> (ParentNotifications, Task<Void, Never>) {
        let parent = ParentNotifications(socketPath: socket, timeout: .seconds(2))
        let task = Task { for await _ in parent.updates {} }
        return (parent, task)
    }

    /// Waits until `listener` received bytes: ParentKit retries every 200 ms, so a refused one had the same chances.
    static func eventuallyReceives(_ listener: FakeListener, _ what: String) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while listener.bytesReceived == 0 {
            guard ContinuousClock.now < deadline else { throw FleetError("\(what) never reached its listener") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test(.enabled(if: geteuid() == 0, "making a file another user's needs root (CI runs as root)"))
    func aRuntimeDirectoryOfAnotherUserIsRefusedByEveryClient() async throws {
        let root = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let planted = root + "/planted"
        let own = root + "/own"
        for directory in [planted, own] {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        }
        let fakeChild = try FakeListener(path: planted + "/child-device.sock")
        let fakeParent = try FakeListener(path: planted + "/parent-device.sock")
        let control = try FakeListener(path: own + "/parent-device.sock")
        defer { for listener in [fakeChild, fakeParent, control] { listener.stop() } }
        for path in [planted, fakeChild.path, fakeParent.path] { chown(path, Self.stranger, Self.stranger) }

        let asked = await Self.askError(fakeChild.path)
        #expect(asked.contains("\(planted): owned by uid \(Self.stranger)"), "\(asked)")
        #expect(asked.contains("Remove it") && asked.contains("HEARTH_RUNTIME_DIR"), "\(asked)")

        let passcode = try await Self.setPasscode(fakeParent.path)
        #expect(passcode.status != 0)
        #expect(passcode.output.contains("owned by uid \(Self.stranger)"), "\(passcode.output)")
        #expect(!passcode.output.contains("Passcode set"), "\(passcode.output)")

        // ParentKit says nothing to its app (its watch retries quietly), and sends nothing: a watch on a socket of
        // the user's own reaches its listener meanwhile.
        let (refused, refusedTask) = Self.watch(fakeParent.path)
        let (accepted, acceptedTask) = Self.watch(control.path)
        try await Self.eventuallyReceives(control, "ParentKit's watch on the user's own socket")
        for (parent, task) in [(refused, refusedTask), (accepted, acceptedTask)] {
            task.cancel()
            await parent.close()
        }
        for listener in [fakeChild, fakeParent] {
            #expect(listener.connections == 0 && listener.bytesReceived == 0, "\(listener.path) was reached")
        }
    }

    @Test(.enabled(if: geteuid() == 0, "making a file another user's needs root (CI runs as root)"))
    func aSocketOfAnotherUserIsRefusedBeforeAnythingIsSent() async throws {
        let root = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        chmod(root, 0o700)
        let fakeChild = try FakeListener(path: root + "/child-device.sock")
        let fakeParent = try FakeListener(path: root + "/parent-device.sock")
        defer { for listener in [fakeChild, fakeParent] { listener.stop() } }
        for listener in [fakeChild, fakeParent] { chown(listener.path, Self.stranger, Self.stranger) }

        let asked = await Self.askError(fakeChild.path)
        #expect(asked.contains("\(fakeChild.path): owned by uid \(Self.stranger)"), "\(asked)")
        #expect(asked.contains("nothing was sent"), "\(asked)")
        let passcode = try await Self.setPasscode(fakeParent.path)
        #expect(passcode.status != 0)
        #expect(passcode.output.contains("owned by uid \(Self.stranger)"), "\(passcode.output)")
        for listener in [fakeChild, fakeParent] {
            #expect(listener.connections == 0 && listener.bytesReceived == 0, "\(listener.path) was reached")
        }

        // The listener does record what reaches it: once the socket is the user's, ParentKit's watch does.
        chown(fakeParent.path, getuid(), getgid())
        let (parent, task) = Self.watch(fakeParent.path)
        try await Self.eventuallyReceives(fakeParent, "ParentKit's watch, the socket being the user's")
        task.cancel()
        await parent.close()
    }

    @Test func aSymbolicLinkToARuntimeDirectoryIsRefused() async throws {
        let root = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let real = root + "/real"
        try FileManager.default.createDirectory(
            atPath: real, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createSymbolicLink(atPath: root + "/linked", withDestinationPath: real)
        let fake = try FakeListener(path: real + "/child-device.sock")
        defer { fake.stop() }
        let asked = await Self.askError(root + "/linked/child-device.sock")
        #expect(asked.contains("\(root)/linked: is a symbolic link"), "\(asked)")
        let passcode = try await Self.setPasscode(root + "/linked/child-device.sock")
        #expect(passcode.output.contains("is a symbolic link"), "\(passcode.output)")
        #expect(fake.connections == 0 && fake.bytesReceived == 0)
    }
}
