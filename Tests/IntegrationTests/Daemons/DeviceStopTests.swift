import DeviceRuntime
import Foundation
import GRDB
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import Synchronization
import Testing
import ZeroMQ

/// A device daemon's stop ends everything it started: a command in flight is answered (or cancelled) before the
/// sockets close, and work a behaviour set off beside it (a timer, a retry) is cancelled and awaited, not left running
/// after the daemon is gone.
@Suite("Device stop", .serialized)
struct DeviceStopTests {
    /// What a behaviour's command was doing when the daemon stopped.
    final class Marks: Sendable {
        private let state = Mutex((started: false, answered: false, timerEnded: false))
        var started: Bool { state.withLock { $0.started } }
        var answered: Bool { state.withLock { $0.answered } }
        var timerEnded: Bool { state.withLock { $0.timerEnded } }
        func start() { state.withLock { $0.started = true } }
        func answer() { state.withLock { $0.answered = true } }
        func endTimer() { state.withLock { $0.timerEnded = true } }
    }

    /// Forwards every local command to the broker (which is not there, so the command waits for the link), after
    /// setting off a long timer beside it.
    struct ForwardingBehavior: DeviceBehavior {
        let name = "child-device"
        let marks: Marks

        func apply(_ event: Event, in db: Database) throws {}
        func applied(_ events: [Event], context: any DeviceContext) async {}
        func linked(context: any DeviceContext) async {}

        func handleLocal(_ envelope: Envelope, from routingID: [UInt8], context: any DeviceContext) async -> Message? {
            context.addTask { [marks] in
                try? await Task.sleep(for: .seconds(60))
                marks.endTimer()
            }
            marks.start()
            let reply = await context.forward(envelope.message)
            marks.answer()
            return reply
        }
    }

    @Test func aCommandInFlightIsAnsweredAndNothingItStartedOutlivesTheDaemon() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stop-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let marks = Marks()
        // A broker nobody serves: the link never comes up, and a forwarded command waits for it (3 s).
        let broker = BrokerAddress(
            ingress: "tcp://127.0.0.1:9", egress: "tcp://127.0.0.1:9", publicKey: try CurveKeyPair.generate().publicKey)
        let options = DeviceOptions(
            brokers: [broker], secretKeyFile: directory + "/device.key", stateDirectory: directory + "/state",
            localSocket: directory + "/run/device.sock")
        let daemon = InProcessDaemon(name: "child-device", label: "child-device", logFile: directory + "/device.log") {
            logger in
            let store = try DeviceStore(path: options.databasePath, label: "child-device") { _ in }
            return try DeviceRuntime(
                options: options, store: store, behavior: ForwardingBehavior(marks: marks), logger: logger)
        }
        try await daemon.start()
        let client = try LocalClient(endpoint: LocalEndpoints.ipc(options.localSocket), peer: "child-device")
        try await Self.eventually { FileManager.default.fileExists(atPath: options.localSocket) }
        try await client.start()
        // A hang detector, not a bound: under a full parallel run the stop alone can take longer than 10 s.
        let reply = Task { try await client.request(.listPending, timeout: .seconds(60)) }
        try await Self.eventually { marks.started }

        #expect(await daemon.stop(grace: .seconds(10)) == 0)
        #expect(marks.answered, "the command was still running after the daemon stopped")
        #expect(marks.timerEnded, "the behaviour's timer was still running after the daemon stopped")
        await #expect(throws: ErrorReply.self, "the command is answered before the sockets close") {
            try await reply.value
        }
        await client.close()
    }

    private static func eventually(_ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw FleetError("condition not met within 10 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
