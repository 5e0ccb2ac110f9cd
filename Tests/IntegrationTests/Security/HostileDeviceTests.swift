import Foundation
import HearthClient
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import Synchronization
import Testing
import ZeroMQ

/// An enrolled device that sends what no device sends, to make the broker hold memory: one command of 511 frames of
/// 1 MiB, then 26 MB of subscriptions to 65 KiB prefixes. Each time it is dropped and refused for the cut-off, the
/// broker's resident memory stays bounded, and another family's round trips go on being answered.
@Suite("Hostile devices", .serialized, .tags(.fleet, .slow))
struct HostileDeviceTests {
    static let spec = FleetSpec(families: [
        .init(
            "appleseed",
            members: [.organizer("alice", devices: ["alice-phone"]), .child("emma", devices: ["emma-tablet"])]),
        .init("other", members: [.organizer("zed", devices: ["zed-phone"])]),
    ])

    static let mebibyte = 1 << 20
    /// Above its resident memory before the attack, the broker's peak: the one message libzmq assembles before the
    /// broker can see any of its frames (511 MiB), and room for the rest; today's main held twice the message.
    static let peakBound = 700 * mebibyte
    /// Above its resident memory before the attacks, the broker's once they are over.
    static let settledBound = 200 * mebibyte
    static let cutOffSeconds = 8

    @Test func aManyFramedCommandAndLongSubscriptionsCutTheDeviceOffWithMemoryBounded() async throws {
        let arguments = ["--hostile-cutoff", "\(Self.cutOffSeconds)", "--metrics", "127.0.0.1:0"]
        try await Fleet.with(Self.spec, brokerArguments: arguments) { fleet in
            let pid = try #require(fleet.broker.pid)
            let victim = try await RawPeer.device("zed-phone", of: fleet)
            _ = try await victim.request(.ping, requestID: 1, timeout: .seconds(10))
            let baseline = try #require(ResidentMemory.bytes(of: pid))
            let watch = ResidentMemory.Watch(pid: pid)
            let pings = RoundTrips(victim)

            // (a) One command of 511 frames of 1 MiB, from a DEALER whose connection is watched.
            let (attacker, events) = try await Self.watchedCommandSocket(of: "emma-tablet", fleet)
            attacker.send(Array(repeating: [UInt8](repeating: 0x41, count: Self.mebibyte), count: 511), on: 0)
            try await Self.waitForCutOffs(1, of: fleet)
            try await fleet.eventually("the broker drops the attacker's connection") {
                events.all.contains {
                    $0.socket == 1 && ZMQMonitorEvent(frames: $0.frames)?.event == ZMQMonitorEvent.disconnected
                }
            }
            let peakA = watch.peak - baseline
            await attacker.stop()
            try await Self.expectRefused(fleet, "after the many-framed command")
            try await Self.expectBackAfterCutOff(fleet)

            // (b) 400 subscriptions of 65 KiB prefixes, each a prefix no other shares, in one hand-off: the first cuts
            // the device off, and the check below must come within the cut-off.
            let subscriptions = (0..<400).map { i in
                SocketLoop.Outgoing(
                    [[1, UInt8(i & 0xff), UInt8(i >> 8)] + [UInt8](repeating: 0x42, count: 65 * 1024)], on: 0)
            }
            let subscriber = try await Self.eventSocket(of: "emma-tablet", fleet)
            subscriber.send(subscriptions)
            try await Self.waitForCutOffs(2, of: fleet)
            await subscriber.stop()
            try await Self.expectRefused(fleet, "after the long subscriptions")
            let peak = watch.peak - baseline
            // glibc is told to give back what libzmq freed 1, 3, 7 and 15 s after each cut-off.
            let settled = try await Self.settledMemory(of: pid, above: baseline)
            let trips = await pings.stop()
            watch.stop()

            let mib = { (bytes: Int) in "\(bytes / Self.mebibyte) MiB" }
            #expect(peakA < Self.peakBound, "peak during the many-framed command: \(mib(peakA)) above its baseline")
            #expect(peak < Self.peakBound, "peak over both attacks: \(mib(peak)) above its baseline")
            #expect(settled < Self.settledBound, "after them: \(mib(settled)) above its baseline")
            #expect(trips.failed == 0, "another family's pings all answered (\(trips.answered) answered)")
            #expect(trips.answered > 0)
            print(
                "hostile device: baseline \(mib(baseline)), peak +\(mib(peak)) (+\(mib(peakA)) in the first attack),"
                    + " settled +\(mib(settled)); zed's worst round trip \(trips.worst) over \(trips.answered) pings")

            let probe = try OpsProbe(addressFile: fleet.directory + "/broker/metrics.address")
            let metrics = try await probe.metrics()
            #expect(metrics.value("hearth_broker_hostile_devices_total", ["on": "commands"]) == 1)
            #expect(metrics.value("hearth_broker_hostile_devices_total", ["on": "events"]) == 1)
            let log = Self.brokerLog(fleet)
            #expect(log.contains("a command of 511 frames"))
            #expect(log.contains("longer than any topic"))
            await victim.close()
        }
    }

    static func brokerLog(_ fleet: Fleet) -> String {
        (try? String(contentsOfFile: fleet.broker.logFile, encoding: .utf8)) ?? ""
    }

    /// The broker's resident memory above `baseline` once it is under `settledBound`, or after the last trim.
    static func settledMemory(of pid: Int32, above baseline: Int) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(20)
        var settled = try #require(ResidentMemory.bytes(of: pid)) - baseline
        while settled >= Self.settledBound, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(500))
            settled = try #require(ResidentMemory.bytes(of: pid)) - baseline
        }
        return settled
    }

    /// Waits until the broker has logged `count` cut-offs.
    static func waitForCutOffs(_ count: Int, of fleet: Fleet) async throws {
        try await fleet.eventually("the broker cuts the device off", timeout: .seconds(60)) {
            Self.brokerLog(fleet).components(separatedBy: "cut off a hostile device").count - 1 >= count
        }
    }

    /// A new connection with the attacker's key is refused: its ping gets no answer.
    static func expectRefused(_ fleet: Fleet, _ when: Comment) async throws {
        let again = try await RawPeer.device("emma-tablet", of: fleet)
        await #expect(throws: (any Error).self, when) {
            _ = try await again.request(.ping, requestID: 2, timeout: .seconds(2))
        }
        await again.close()
    }

    /// Once the cut-off is over, the key gets back in: a cut-off is no revocation.
    static func expectBackAfterCutOff(_ fleet: Fleet) async throws {
        try await Task.sleep(for: .seconds(Self.cutOffSeconds))
        let back = try await RawPeer.device("emma-tablet", of: fleet)
        #expect(try await back.request(.ping, requestID: 3, timeout: .seconds(15)) == .pong(head: 0))
        await back.close()
    }

    /// A DEALER with `device`'s key on the broker's command socket (0), let in, and what it receives as it comes: its
    /// replies, and its monitor's events (1).
    static func watchedCommandSocket(
        of device: DeviceID, _ fleet: Fleet
    ) async throws -> (SocketLoop, Recorder<(socket: Int, frames: [[UInt8]])>) {
        let broker = try RawPeer.readyFile(fleet.readyFile)
        let keys = try KeyFiles.loadPair(secretPath: fleet.directory + "/keys/\(device).key")
        let monitor = "inproc://hostile-dealer-\(UUID().uuidString)"
        let loop = try SocketLoop(
            name: "hostile-dealer",
            sockets: [
                .init(.dealer) { socket in
                    try socket.setLinger(milliseconds: 0)
                    try socket.makeCurveClient(serverPublicKey: broker.key, keys: keys)
                    try socket.monitor(monitor, events: ZMQMonitorEvent.disconnected)
                    try socket.connect(broker.ingress)
                },
                .init(.pair) { socket in
                    try socket.setLinger(milliseconds: 0)
                    try socket.connect(monitor)
                },
            ])
        try await loop.start()
        let received = Recorder<(socket: Int, frames: [[UInt8]])>()
        let inbound = loop.inbound
        Task {
            for await batch in inbound { received.append(contentsOf: batch.map { ($0.socket, $0.message.frames) }) }
        }
        // Connected and let in before it attacks: its ping is answered.
        loop.send([MessageCodec.encode(.ping, requestID: 1)], on: 0)
        try await fleet.eventually("the attacker is let in") { received.all.contains { $0.socket == 0 } }
        return (loop, received)
    }

    /// An XSUB with `device`'s key on the broker's event socket: it sends whatever subscriptions it is given.
    static func eventSocket(of device: DeviceID, _ fleet: Fleet) async throws -> SocketLoop {
        let broker = try RawPeer.readyFile(fleet.readyFile)
        let keys = try KeyFiles.loadPair(secretPath: fleet.directory + "/keys/\(device).key")
        let loop = try SocketLoop(
            name: "hostile-xsub",
            sockets: [
                .init(.xsub) { socket in
                    try socket.setLinger(milliseconds: 0)
                    try socket.makeCurveClient(serverPublicKey: broker.key, keys: keys)
                    try socket.connect(broker.egress)
                }
            ])
        try await loop.start()
        return loop
    }
}

/// A device's pings, one after another until stopped: how many were answered, how many not, and the slowest.
final class RoundTrips: Sendable {
    struct Result: Sendable {
        var answered = 0
        var failed = 0
        var worst: Duration = .zero
    }

    private final class Stop: Sendable {
        let requested = Atomic<Bool>(false)
    }

    private let task: Task<Result, Never>
    private let stopping = Stop()

    init(_ peer: RawPeer) {
        let stopping = self.stopping
        task = Task {
            var result = Result()
            var id: UInt64 = 100
            while !stopping.requested.load(ordering: .relaxed) {
                id += 1
                let start = ContinuousClock.now
                do {
                    _ = try await peer.request(.ping, requestID: id, timeout: .seconds(30))
                    result.answered += 1
                    result.worst = max(result.worst, start.duration(to: .now))
                } catch {
                    result.failed += 1
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return result
        }
    }

    func stop() async -> Result {
        stopping.requested.store(true, ordering: .relaxed)
        return await task.value
    }
}

/// A process's resident memory (`VmRSS` in `/proc/PID/status`).
enum ResidentMemory {
    static func bytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
        else { return nil }
        return kilobytes * 1024
    }

    /// Samples a process's resident memory every 5 ms until stopped, keeping the peak.
    final class Watch: Sendable {
        private let highest = Atomic<Int>(0)
        private let stopping = Atomic<Bool>(false)

        init(pid: Int32) {
            // A thread of its own: sampling must go on while the test's tasks wait. It holds the watch until stopped.
            Thread.detachNewThread { [self] in
                while !stopping.load(ordering: .relaxed) {
                    if let bytes = ResidentMemory.bytes(of: pid), bytes > highest.load(ordering: .relaxed) {
                        highest.store(bytes, ordering: .relaxed)
                    }
                    usleep(5000)
                }
            }
        }

        var peak: Int { highest.load(ordering: .relaxed) }

        func stop() { stopping.store(true, ordering: .relaxed) }
    }
}
