import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import HearthTransport
import Testing
import ZeroMQ

/// Two family-broker processes on one PostgreSQL server: they split the partitions, each answers a device of a
/// family it does not serve with the owner (or `brokerUnavailable`), a killed broker's partitions are taken over
/// once its leases expire, and a key revoked on one broker is refused by the other.
///
/// Families: `appleseed` is in partition 2 of 8 and `banks` in partition 4 (FNV-1a 64, docs/SCALING.md). Broker a
/// starts alone and takes all 8; once b has joined, a keeps 0–3 and releases 4–7 to b.
@Suite(
    "Cluster of brokers on PostgreSQL", .serialized, .tags(.fleet, .postgres, .slow),
    .enabled(if: PostgresTier.runs, PostgresTier.skipped))
struct ClusterBrokerTests {
    static let spec = FleetSpec(
        families: [
            .init("appleseed", members: [.organizer("alice", devices: ["alice-phone"])]),
            .init("banks", members: [.organizer("bea", devices: ["bea-phone"])]),
        ], store: .postgres)

    static let clusterArguments = ["--partitions", "8", "--lease-seconds", "2"]

    /// A second broker of `fleet`'s cluster, as a process with a state directory of its own.
    static func secondBroker(of fleet: Fleet, name: String) throws -> DaemonProcess {
        let server = try #require(fleet.postgresServer)
        let state = fleet.directory + "/broker-\(name)"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        return DaemonProcess(
            name: "family-broker \(name)", executable: try BinaryLocator.directory() + "/family-broker",
            arguments: [
                "--state", state, "--families", fleet.directory + "/families.yaml", "--ingress", "tcp://127.0.0.1:0",
                "--egress", "tcp://127.0.0.1:0", "--store", server.url, "--store-password-file", server.passwordFile,
                "--broker-name", name, "--log-level", "debug",
            ] + clusterArguments,
            logFile: fleet.directory + "/logs/family-broker-\(name).log")
    }

    /// What `device`'s `hello` gets from the broker whose ready file is `readyFile`; nil when no reply comes within
    /// `timeout` (a refused key). Long by default: a loaded machine may take seconds for a handshake.
    static func hello(
        _ device: DeviceID, readyFile: String, fleet: Fleet, timeout: Duration = .seconds(10)
    ) async throws -> Message? {
        let broker = try RawPeer.readyFile(readyFile)
        let keys = try KeyFiles.loadPair(secretPath: fleet.directory + "/keys/\(device).key")
        let peer = try await RawPeer(ingress: broker.ingress, egress: broker.egress, brokerKey: broker.key, keys: keys)
        defer { Task { await peer.close() } }
        return try? await peer.request(
            .hello(minVersion: Wire.version, maxVersion: Wire.version), requestID: 7, timeout: timeout)
    }

    static func isWelcome(_ message: Message?) -> Bool {
        if case .welcome = message { return true }
        return false
    }

    /// Whether `message` sends the device elsewhere: a redirect, or `brokerUnavailable` while nobody serves it.
    static func isTurnedAway(_ message: Message?) -> Bool {
        if case .error(let reply) = message { return reply.code == .brokerUnavailable }
        return redirect(message) != nil
    }

    static func redirect(_ message: Message?) -> BrokerRedirect? {
        if case .redirect(let redirect) = message { return redirect }
        return nil
    }

    /// Whether `message` redirects to the broker whose ready file is `readyFile`, for partition `partition`.
    static func redirects(_ message: Message?, to readyFile: String, partition: UInt32) throws -> Bool {
        guard let redirect = redirect(message) else { return false }
        let broker = try RawPeer.readyFile(readyFile)
        return redirect.ingress == broker.ingress && redirect.egress == broker.egress
            && redirect.publicKey == broker.key && redirect.partition == partition && redirect.epoch > 0
    }

    @Test func twoBrokersSplitThePartitionsAndOneTakesOverWhenTheOtherIsKilled() async throws {
        let arguments = Self.clusterArguments + ["--broker-name", "a", "--metrics", "127.0.0.1:0"]
        try await Fleet.with(Self.spec, brokerArguments: arguments) { fleet in
            let b = try Self.secondBroker(of: fleet, name: "b")
            let bReady = fleet.directory + "/broker-b/broker.ready.json"
            try b.start()
            defer { b.signal(SIGKILL) }
            try await fleet.eventually("b is ready", timeout: .seconds(30)) {
                FileManager.default.fileExists(atPath: bReady)
            }
            try await fleet.eventually("b serves banks, a redirects its devices to b", timeout: .seconds(30)) {
                let onB = try await Self.hello("bea-phone", readyFile: bReady, fleet: fleet)
                let onA = try await Self.hello("bea-phone", readyFile: fleet.readyFile, fleet: fleet)
                return try Self.isWelcome(onB) && Self.redirects(onA, to: bReady, partition: 4)
            }
            #expect(Self.isWelcome(try await Self.hello("alice-phone", readyFile: fleet.readyFile, fleet: fleet)))
            let aliceOnB = try await Self.hello("alice-phone", readyFile: bReady, fleet: fleet)
            #expect(try Self.redirects(aliceOnB, to: fleet.readyFile, partition: 2), "\(String(describing: aliceOnB))")

            // a's metrics and hearthctl status show the partitions it serves and their epochs: 0-3, taken once.
            let probe = try OpsProbe(addressFile: fleet.directory + "/broker/metrics.address")
            try await fleet.eventually("a's metrics show its 4 partitions") {
                try await probe.metrics().total("hearth_broker_partitions_owned") == 4
            }
            let epochs = try await probe.metrics().byLabel("hearth_broker_partition_epoch", "partition")
            #expect(epochs["0"] == 1 && epochs["3"] == 1 && epochs["4"] == 0, "\(epochs)")
            let status = try await FamilyRulesIntegrationTests.hearthctl(
                ["status", "--endpoint", "family-broker=\(probe.address)"], fleet: fleet)
            #expect(status.output.contains("partitions 4 (0@1 1@1 2@1 3@1)"), "\(status.output)")

            // b dies without a word: a takes its partitions once their leases (2 s) expire.
            let killed = ContinuousClock.now
            b.signal(SIGKILL)
            _ = await b.waitForExit(timeout: .seconds(10))
            try await fleet.eventually("a serves banks again", timeout: .seconds(30)) {
                Self.isWelcome(try await Self.hello("bea-phone", readyFile: fleet.readyFile, fleet: fleet))
            }
            let served = ContinuousClock.now - killed
            print("banks served again \(served) after its broker was killed (lease 2 s)")
            #expect(served >= .seconds(1), "not before b's lease could have expired")
        }
    }

    @Test func aKeyRevokedOnOneBrokerIsRefusedByTheOther() async throws {
        try await Fleet.with(Self.spec, brokerArguments: Self.clusterArguments + ["--broker-name", "a"]) { fleet in
            let b = try Self.secondBroker(of: fleet, name: "b")
            let bReady = fleet.directory + "/broker-b/broker.ready.json"
            try b.start()
            defer { b.signal(SIGKILL) }
            try await fleet.eventually("b answers bea-phone", timeout: .seconds(30)) {
                try await Self.hello("bea-phone", readyFile: bReady, fleet: fleet) != nil
            }
            let revoke = try await FamilyRulesIntegrationTests.admin(["revoke", "bea-phone"], fleet: fleet)
            #expect(revoke.contains("revoked bea-phone"), "\(revoke)")
            try await fleet.eventually("b refuses the revoked key", timeout: .seconds(10)) {
                try await Self.hello("bea-phone", readyFile: bReady, fleet: fleet, timeout: .seconds(2)) == nil
            }
            #expect(try await Self.hello("alice-phone", readyFile: bReady, fleet: fleet) != nil, "others still get in")
        }
    }

    @Test func aBrokerPausedPastItsLeaseCommitsNothingWhenItResumes() async throws {
        var spec = Self.spec
        spec.families[0].members.append(.child("emma", devices: ["emma-tablet"]))
        try await Fleet.with(spec, brokerArguments: Self.clusterArguments + ["--broker-name", "a"]) { fleet in
            let b = try Self.secondBroker(of: fleet, name: "b")
            let bReady = fleet.directory + "/broker-b/broker.ready.json"
            try b.start()
            defer { b.signal(SIGKILL) }
            try await fleet.eventually("b serves banks", timeout: .seconds(30)) {
                Self.isWelcome(try await Self.hello("bea-phone", readyFile: bReady, fleet: fleet))
            }
            // Emma's key, straight at a (which serves appleseed), without her daemon.
            await (try fleet.daemon("emma-tablet")).stop()
            let broker = try RawPeer.readyFile(fleet.readyFile)
            let keys = try KeyFiles.loadPair(secretPath: fleet.directory + "/keys/emma-tablet.key")
            let peer = try await RawPeer(
                ingress: broker.ingress, egress: broker.egress, brokerKey: broker.key, keys: keys)
            defer { Task { await peer.close() } }
            let welcome = try await peer.request(
                .hello(minVersion: Wire.version, maxVersion: Wire.version), requestID: 1)
            #expect(Self.isWelcome(welcome), "\(welcome)")

            // a stops past its lease; b takes appleseed; an ask waits for a, which then resumes.
            try fleet.currentBroker.pause()
            try await fleet.eventually("b serves appleseed", timeout: .seconds(30)) {
                Self.isWelcome(try await Self.hello("alice-phone", readyFile: bReady, fleet: fleet))
            }
            peer.send(.ask(appBundleID: "com.example.chat", question: GracefulShutdownTests.question(1)), requestID: 2)
            try await Task.sleep(for: .milliseconds(200))
            try fleet.currentBroker.resume()
            try await fleet.eventually("a answers the ask", timeout: .seconds(10)) { !peer.messages(on: 0).isEmpty }
            let answer = try #require(peer.messages(on: 0).first)
            // Refused by its fencing check (brokerUnavailable) or, once its keeper ran, redirected to b.
            #expect(Self.isTurnedAway(answer), "\(answer)")

            // Nothing of it is stored: emma's log, read from the database by b, is empty.
            let onB = try RawPeer.readyFile(bReady)
            let reader = try await RawPeer(ingress: onB.ingress, egress: onB.egress, brokerKey: onB.key, keys: keys)
            defer { Task { await reader.close() } }
            _ = try await reader.request(.hello(minVersion: Wire.version, maxVersion: Wire.version), requestID: 1)
            let log = try await reader.request(.sync(after: 0, limit: 100), requestID: 2)
            guard case .events(_, let events) = log else {
                Issue.record("b answers emma's sync: \(log)")
                return
            }
            #expect(events.isEmpty, "\(events)")
        }
    }
}
