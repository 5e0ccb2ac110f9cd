import Foundation
import GRDB
import HearthCore
import HearthFleet
import HearthProtocol
import HearthService
import HearthTransport
import PermissionKit
import Testing

/// The daemons' local sockets are the owning user's only, and on child-device one app never gets another app's responses.
@Suite("Local sockets", .serialized, .tags(.fleet))
struct LocalSocketTests {
    static let spec = FleetSpec(families: [
        .init(
            "appleseed",
            members: [.organizer("alice", devices: ["alice-phone"]), .child("emma", devices: ["emma-tablet"])])
    ])

    /// Another local user, with no account: chown makes a fixture theirs.
    static let stranger: uid_t = 65533

    /// The file type bits and the permission bits of `path`, or nil if it does not exist.
    static func mode(_ path: String) -> (type: mode_t, permissions: mode_t)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT, info.st_mode & 0o7777)
    }

    /// A device daemon of `kind` with a key the broker does not know (it never links; its socket is what is tested).
    static func launch(
        _ kind: String, socket: String, in fleet: Fleet
    ) throws -> (process: SpawnedProcess, log: String) {
        let name = (socket as NSString).lastPathComponent
        let log = fleet.directory + "/logs/\(name).log"
        let process = try SpawnedProcess.launch(
            try BinaryLocator.directory() + "/" + kind,
            arguments: [
                "--key-file", fleet.directory + "/keys/\(name).key", "--state", fleet.directory + "/devices/\(name)",
                "--socket", socket, "--broker-ready", fleet.readyFile,
            ], output: log, append: false)
        return (process, log)
    }

    /// True if `process` exited with a failure; false if it succeeded or still runs after 30 s (it is stopped then): a
    /// daemon that accepts what it should refuse runs on.
    static func refusedToStart(_ process: SpawnedProcess) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        guard !process.isRunning else {
            stop(process)
            return false
        }
        return await process.waitUntilExit() != 0
    }

    /// Stops a daemon `launch` started and waits for it (in a `defer`, so without suspending).
    static func stop(_ process: SpawnedProcess) {
        if process.isRunning { kill(process.pid, SIGTERM) }
        while process.isRunning { usleep(10_000) }
    }

    /// Entries waiting in emma-tablet's per-app inbox, read from its database without writing.
    static func inboxCount(in fleet: Fleet) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(
            path: fleet.directory + "/devices/emma-tablet/device.sqlite", configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM inbox") ?? 0 }
    }

    @Test func everyLocalSocketIsOwnerOnlyInAnOwnerOnlyDirectory() async throws {
        try await Fleet.with(Self.spec) { fleet in
            let admin = fleet.directory + "/broker/admin.sock"
            for path in [fleet.socket(of: "emma-tablet"), fleet.socket(of: "alice-phone"), admin] {
                let mode = Self.mode(path)
                #expect(mode?.type == S_IFSOCK, "\(path) is a socket")
                #expect(mode?.permissions == 0o600, "\(path): \(String(mode?.permissions ?? 0, radix: 8))")
            }
            // The broker makes its state directory (where the admin socket lives) owner-only even when it was not.
            chmod(fleet.directory + "/broker", 0o755)
            try await fleet.restartBroker()
            #expect(Self.mode(fleet.directory + "/broker")?.permissions == 0o700)
            #expect(Self.mode(admin)?.permissions == 0o600)

            // Each device daemon makes the directory of its socket, owner-only.
            for kind in ["child-device", "parent-device"] {
                let directory = fleet.directory + "/fresh-\(kind)/nested"
                let socket = directory + "/\(kind).sock"
                let (process, _) = try Self.launch(kind, socket: socket, in: fleet)
                defer { Self.stop(process) }
                try await fleet.eventually("\(kind) binds its socket") { Self.mode(socket)?.permissions == 0o600 }
                #expect(Self.mode(directory)?.permissions == 0o700, "\(kind) made \(directory) owner-only")
                #expect(Self.mode(socket)?.type == S_IFSOCK)
            }
        }
    }

    @Test func aDeviceDaemonRefusesASocketDirectoryOtherUsersCanWriteOrOwnOrLinked() async throws {
        try await Fleet.with(Self.spec) { fleet in
            let shared = fleet.directory + "/shared"
            try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
            // Sticky (as /tmp) or not: another user may not replace the daemon's socket there, but may bind one first.
            for (mode, name) in [(mode_t(0o777), "child"), (0o1777, "sticky")] {
                chmod(shared, mode)
                let (refused, log) = try Self.launch("child-device", socket: shared + "/\(name).sock", in: fleet)
                #expect(try await Self.refusedToStart(refused))
                #expect(Self.mode(shared + "/\(name).sock") == nil, "no socket was made")
                let output = try String(contentsOfFile: log, encoding: .utf8)
                #expect(output.contains("other users may write to it") && output.contains("chmod 700"), "\(output)")
            }
            // A directory reached through a symbolic link, which its maker could point elsewhere.
            chmod(shared, 0o700)
            try FileManager.default.createSymbolicLink(atPath: fleet.directory + "/linked", withDestinationPath: shared)
            let (linked, linkedLog) = try Self.launch(
                "child-device", socket: fleet.directory + "/linked/l.sock", in: fleet)
            #expect(try await Self.refusedToStart(linked))
            #expect(try String(contentsOfFile: linkedLog, encoding: .utf8).contains("is a symbolic link"))
            #expect(Self.mode(shared + "/l.sock") == nil, "no socket was made")
        }
    }

    @Test(.enabled(if: geteuid() == 0, "making a file another user's needs root (CI runs as root)"))
    func aDeviceDaemonRefusesASocketDirectoryOfAnotherUser() async throws {
        try await Fleet.with(Self.spec) { fleet in
            let planted = fleet.directory + "/planted"
            try FileManager.default.createDirectory(atPath: planted, withIntermediateDirectories: false)
            chown(planted, Self.stranger, Self.stranger)
            let (refused, log) = try Self.launch("child-device", socket: planted + "/child.sock", in: fleet)
            #expect(try await Self.refusedToStart(refused))
            let output = try String(contentsOfFile: log, encoding: .utf8)
            #expect(
                output.contains("owned by uid \(Self.stranger)") && output.contains("HEARTH_RUNTIME_DIR"), "\(output)")
            #expect(Self.mode(planted + "/child.sock") == nil, "no socket was made")
        }
    }

    @Test func oneAppNeverReceivesNorTakesAnotherAppsResponses() async throws {
        try await Fleet.with(Self.spec) { fleet in
            var topic = CommunicationTopic(personInformation: [
                PersonInformation(handle: CommunicationHandle(value: "pal", kind: .custom))
            ])
            topic.actions = [.message]
            let question = PermissionQuestion(communicationTopic: topic)
            // App A asks and quits before the answer, so its response waits in the daemon's inbox.
            let appA = fleet.app("com.example.a", on: "emma-tablet")
            try await appA.ask(question)
            await appA.close()

            // App B is connected all along, as a raw client that records every push.
            let appB = try LocalClient(
                endpoint: LocalEndpoints.ipc(fleet.socket(of: "emma-tablet")), peer: "child-device")
            try await appB.start()
            guard case .appWelcome(let member, _) = try await appB.request(.appHello(bundleID: "com.example.b")) else {
                Issue.record("no welcome for app B")
                return
            }
            #expect(member == "emma")
            let pushed = Recorder<Envelope>()
            let pushes = appB.pushes
            let reader = Task { for await push in pushes { pushed.append(push) } }

            let alice = try await fleet.parent(on: "alice-phone")
            _ = try await alice.waitForQuestion(question.id)
            _ = try await alice.approve(question.id)
            try await fleet.eventually("the response waits in child-device's inbox") {
                try Self.inboxCount(in: fleet) == 1
            }
            // B tries to take A's response by guessing inbox ids: each ack is answered, none removes it.
            for inboxID in UInt64(1)...20 {
                #expect(try await appB.request(.appAck(inboxID: inboxID)) == .ok)
            }
            #expect(try Self.inboxCount(in: fleet) == 1)

            // A comes back and receives its response: B neither saw it nor took it.
            let appAAgain = fleet.app("com.example.a", on: "emma-tablet")
            // Iterating `updates` connects and says hello, which makes the daemon push the app's inbox.
            let responses = ResponseCollector(appAAgain)
            try await fleet.eventually("app A receives its response") { !responses.responses(for: question.id).isEmpty }
            try await fleet.eventually("app A acknowledged it") { try Self.inboxCount(in: fleet) == 0 }
            #expect(pushed.all.isEmpty, "app B was pushed \(pushed.all)")
            responses.cancel()
            reader.cancel()
            await appB.close()
            await appAAgain.close()
            await alice.close()
        }
    }
}
