import Foundation
import HearthCore
import HearthFleet
import HearthTransport
import PermissionKit
import Testing
import ZeroMQ

/// The broker's ops endpoint on a running fleet: metrics move with real traffic, readiness, `hearthctl status`, and
/// no secret key in any daemon's log.
@Suite("Ops endpoint", .tags(.fleet))
struct OpsEndpointTests {
    static let family = FleetSpec(
        families: [
            .init(
                "appleseed",
                members: [
                    .organizer("alice", devices: ["alice-phone"]),
                    .child("emma", devices: ["emma-tablet"]),
                    .child("liam", devices: ["liam-tablet"], communicationLimits: false),
                ])
        ])

    static func question(_ handle: String) -> PermissionQuestion<CommunicationTopic> {
        var topic = CommunicationTopic(personInformation: [
            PersonInformation(handle: CommunicationHandle(value: handle, kind: .custom))
        ])
        topic.actions = [.message]
        return PermissionQuestion(communicationTopic: topic)
    }

    @Test func metricsCountAsksAnswersDefaultsAndErrors() async throws {
        try await Fleet.with(Self.family, brokerArguments: ["--metrics", "127.0.0.1:0"]) { fleet in
            let probe = try OpsProbe(addressFile: fleet.directory + "/broker/metrics.address")
            let readiness = try await probe.readiness()
            #expect(readiness.ok)
            #expect(readiness.detail.contains("database open"))
            #expect(try await probe.liveness().ok)

            let emma = fleet.app("com.example.chat", on: "emma-tablet")
            let liam = fleet.app("com.example.chat", on: "liam-tablet")
            let asked = Self.question("pal")
            try await emma.ask(asked)
            try await liam.ask(Self.question("buddy"))  // limits off: the default response, nobody asked
            let alice = try await fleet.parent(on: "alice-phone")
            _ = try await alice.waitForQuestion(asked.id)
            _ = try await alice.approve(asked.id)
            await #expect(throws: (any Error).self) { _ = try await alice.approve(UUID()) }  // notFound
            await alice.close()
            await emma.close()
            await liam.close()

            try await fleet.eventually("the broker's metrics show the traffic") {
                let m = try await probe.metrics()
                return m.total("hearth_broker_asks_total") >= 2 && m.total("hearth_broker_connected_devices") >= 3
            }
            let m = try await probe.metrics()
            #expect(m.total("hearth_broker_asks_total") == 2)
            #expect(m.total("hearth_broker_answers_total") == 2)
            #expect(m.total("hearth_broker_parent_answers_total") == 1)
            #expect(m.value("hearth_broker_default_responses_total", ["reason": "defaultLimitsOff"]) == 1)
            #expect(m.value("hearth_broker_errors_total", ["code": "notFound"]) == 1)
            #expect(m.total("hearth_broker_errors_total") == 1)
            #expect(m.total("hearth_broker_syncs_total") >= 3)
            #expect(m.total("hearth_broker_connected_devices") == 3)
            #expect(m.total("hearth_broker_subscribed_members") == 3)
            #expect(m.total("hearth_broker_commit_seconds_count") >= 1)
            #expect(m.total("hearth_broker_batch_commands_count") == m.total("hearth_broker_commit_seconds_count"))

            let status = try await ExecutableRun.run(
                "hearthctl", ["status", "--endpoint", "family-broker=\(probe.address)"])
            #expect(status.status == 0)
            #expect(status.output.contains("ready"), "\(status.output)")
            #expect(status.output.contains("asks 2"), "\(status.output)")
            #expect(status.output.contains("connected devices 3"), "\(status.output)")
            let down = try await ExecutableRun.run("hearthctl", ["status", "--endpoint", "nobody=127.0.0.1:1"])
            #expect(down.status == 3)
            #expect(down.output.contains("down"), "\(down.output)")
        }
    }

    /// DNS rebinding: a web page that points its own name at this host still sends that name as `Host`, and reads
    /// nothing (`/readyz` names the daemon's state). An address literal or `localhost` with the port is served.
    @Test func aForeignHostIsRefusedAndTheDescriptorLimitIsReported() async throws {
        try await Fleet.with(Self.family, brokerArguments: ["--metrics", "127.0.0.1:0"]) { fleet in
            let probe = try OpsProbe(addressFile: fleet.directory + "/broker/metrics.address")
            let port = try #require(probe.address.split(separator: ":").last.flatMap { Int($0) })
            for path in ["/metrics", "/readyz", "/healthz"] {
                let foreign = try await RawHTTP(port: port, host: "rebind.example:\(port)").send("GET", path)
                #expect(foreign.status == 421, "\(path): \(foreign.head)")
                #expect(!foreign.body.contains("hearth_"), "\(path)")
                let own = try await RawHTTP(port: port, host: "localhost:\(port)").send("GET", path)
                #expect(own.status == 200, "\(path): \(own.head)")
                #expect(own.header("X-Frame-Options") == "DENY")
            }
            let posted = try await RawHTTP(port: port).send("POST", "/metrics", bodyBytes: 1 << 20)
            #expect(posted.status == 413 || posted.status == nil, "\(posted.head)")
            let metrics = try await probe.metrics()
            let soft = try #require(metrics.value("hearth_open_files_limit", ["kind": "soft"]))
            #expect(soft > 0 && soft == metrics.value("hearth_open_files_limit", ["kind": "hard"]), "raised at start")
            let log = try String(contentsOfFile: fleet.currentBroker.logFile, encoding: .utf8)
            #expect(log.contains("open descriptor limit"), "logged at start")
        }
    }

    /// Daemons log at debug level in a fleet, the most they ever say: still no secret key.
    @Test func noDaemonLogsItsSecretKey() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            try await app.ask(Self.question("pal"))
            await app.close()
            try await fleet.restartBroker()
            try await fleet.waitUntilLinked("emma-tablet")
            let secrets: [(String, String)] = [
                (fleet.directory + "/broker/broker.key", fleet.broker.logFile),
                (fleet.directory + "/keys/emma-tablet.key", try fleet.daemon("emma-tablet").logFile),
                (fleet.directory + "/keys/alice-phone.key", try fleet.daemon("alice-phone").logFile),
            ]
            for (keyFile, logFile) in secrets {
                let secret = try KeyFiles.loadPair(secretPath: keyFile).secretKey
                let log = try String(contentsOfFile: logFile, encoding: .utf8)
                #expect(secret.count == 40)
                #expect(log.contains("debug"), "the log is at debug level: \(logFile)")
                #expect(!log.contains(secret), "\(logFile) contains the secret key of \(keyFile)")
            }
        }
    }
}
