import FamilyBroker
import Foundation
import GRDB
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import PermissionKit
import Synchronization
import Testing
import ZeroMQ

/// SIGTERM: the daemon stops reading, commits and answers what it read, and exits within its stated bound
/// (shutdownTimeout, 5 s by default); nothing it acknowledged is lost.
@Suite("Graceful shutdown", .serialized, .tags(.fleet))
struct GracefulShutdownTests {
    static let family = FleetSpec(families: [
        .init(
            "appleseed",
            members: [
                .organizer("alice", devices: ["alice-phone"]),
                .child("emma", devices: ["emma-tablet", "emma-load"]),
            ])
    ])
    /// The documented default bound, plus slack for a loaded CI machine: a correctness bound, not a benchmark.
    static let bound: Duration = .seconds(5)
    static let slack: Duration = .seconds(3)

    /// One new handle per question, so none is folded into another pending one.
    static func question(_ index: Int) -> Question {
        var topic = CommunicationTopic(personInformation: [
            PersonInformation(
                handle: CommunicationHandle(value: "pal-\(index)-\(UUID().uuidString.prefix(6))", kind: .custom))
        ])
        topic.actions = [.message]
        return Question(PermissionQuestion(communicationTopic: topic))
    }

    static func accepted(_ peer: RawPeer) -> [UUID: AskedQuestion] {
        var result: [UUID: AskedQuestion] = [:]
        for case .askAccepted(let asked, _) in peer.messages(on: 0) { result[asked.question.id] = asked }
        return result
    }

    @Test func brokerUnderAStreamOfAsksExitsInTimeAndLosesNothingAcknowledged() async throws {
        // Limits out of the way: the stream is far over a child's ask limit and a device's command rate.
        try await Fleet.with(Self.family, brokerArguments: ["--ask-limit", "1000000/3600", "--device-rate", "100000"]) {
            fleet in
            // A hand-made client with one of Emma's keys streams asks straight at the broker.
            await (try fleet.daemon("emma-load")).stop()
            let ready = try RawPeer.readyFile(fleet.readyFile)
            let keys = try KeyFiles.loadPair(secretPath: fleet.directory + "/keys/emma-load.key")
            let peer = try await RawPeer(ingress: ready.ingress, egress: ready.egress, brokerKey: ready.key, keys: keys)
            peer.send(.hello(minVersion: Wire.minimumVersion, maxVersion: Wire.version), requestID: 1)
            try await fleet.eventually("the broker welcomes the load client") {
                peer.messages(on: 0).contains { if case .welcome = $0 { true } else { false } }
            }
            let sent = Mutex<[UUID: Question]>([:])
            let stream = Task {
                var index = 0
                while !Task.isCancelled, index < 50_000 {
                    let question = Self.question(index)
                    sent.withLock { $0[question.id] = question }
                    peer.send(.ask(appBundleID: "com.example.chat", question: question), requestID: UInt64(index + 2))
                    index += 1
                    if index % 25 == 0 { try? await Task.sleep(for: .milliseconds(2)) }
                }
            }
            try await fleet.eventually("asks are being accepted", timeout: .seconds(30)) {
                Self.accepted(peer).count >= 200
            }

            let broker = try #require(fleet.currentBroker as? DaemonProcess, "a process fleet")
            let start = ContinuousClock.now
            broker.signal(SIGTERM)
            let status = await broker.waitForExit(timeout: Self.bound + Self.slack + .seconds(5))
            let elapsed = ContinuousClock.now - start
            stream.cancel()
            _ = await stream.value
            try await Task.sleep(for: .milliseconds(300))  // replies already on the wire
            await peer.close()
            #expect(status == 0, "exited by itself, not by the watchdog (70) or a signal; log:\n\(broker.recentLog())")
            #expect(elapsed < Self.bound + Self.slack, "stopped in \(elapsed)")

            let acknowledged = Self.accepted(peer)
            #expect(acknowledged.count >= 200)
            #expect(acknowledged.count < sent.withLock { $0.count }, "the stream was still running at SIGTERM")

            // In the database, read directly while the broker is down.
            let database = try DatabaseQueue(path: fleet.directory + "/broker/broker.sqlite")
            let stored = try await database.read { db in
                Set(try Data.fetchAll(db, sql: "SELECT id FROM question"))
            }
            let missing = acknowledged.keys.filter { !stored.contains($0.wireBytes) }
            #expect(missing.isEmpty, "\(missing.count) acknowledged questions are not in the database")

            // And after a restart: a retry returns the record made before the shutdown, not a new one.
            try await fleet.startBrokerAgain()
            let again = try await RawPeer(
                ingress: ready.ingress, egress: ready.egress, brokerKey: ready.key, keys: keys)
            defer { Task { await again.close() } }
            again.send(.hello(minVersion: Wire.minimumVersion, maxVersion: Wire.version), requestID: 1)
            let sample = Array(acknowledged.keys.prefix(100))
            let questions = sent.withLock { $0 }
            for (index, id) in sample.enumerated() {
                again.send(
                    .ask(appBundleID: "com.example.chat", question: questions[id]!), requestID: UInt64(index + 2))
            }
            try await fleet.eventually("the retries are answered") { Self.accepted(again).count >= sample.count }
            let retried = Self.accepted(again)
            for id in sample {
                #expect(retried[id] == acknowledged[id], "question \(id) was recorded before the shutdown")
            }
        }
    }

    @Test func deviceDaemonsExitInTimeOnSIGTERM() async throws {
        try await Fleet.with(Self.family) { fleet in
            for device in ["emma-tablet", "alice-phone"] {
                let daemon = try #require(try fleet.daemon(device) as? DaemonProcess, "a process fleet")
                let start = ContinuousClock.now
                daemon.signal(SIGTERM)
                let status = await daemon.waitForExit(timeout: Self.bound + Self.slack + .seconds(5))
                #expect(status == 0, "\(device): \(daemon.recentLog())")
                #expect(ContinuousClock.now - start < Self.bound + Self.slack, "\(device)")
            }
        }
    }
}
