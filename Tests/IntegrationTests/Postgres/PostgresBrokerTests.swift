import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import PermissionKit
import Testing

/// The real daemons with the broker on PostgreSQL (`FleetSpec(store: .postgres)`: a throwaway server of the fleet's
/// own, removed with it): asks and answers, a server lost and back under a stream of asks, a broker killed under load.
@Suite(
    "Broker on PostgreSQL", .serialized, .tags(.fleet, .postgres), .enabled(if: PostgresTier.runs, PostgresTier.skipped)
)
struct PostgresBrokerTests {
    static let family = FleetSpec(
        families: [
            .init(
                "appleseed",
                members: [
                    .organizer("alice", devices: ["alice-phone"]),
                    .child("emma", devices: ["emma-tablet"]),
                ])
        ], store: .postgres)

    static func question(_ value: String) -> PermissionQuestion<CommunicationTopic> {
        PermissionQuestion(handles: [CommunicationHandle(value: value, kind: .custom)])
    }

    /// `body`'s result, tried up to four times while it throws anything but a broker's refusal.
    static func retrying<T>(_ body: () async throws -> T) async throws -> T {
        for _ in 1..<4 {
            do {
                return try await body()
            } catch let refusal as ErrorReply where refusal.code != .brokerUnavailable {
                throw refusal
            } catch {
                try await Task.sleep(for: .seconds(1))
            }
        }
        return try await body()
    }

    @Test func askAndAnswerRunThroughTheDaemonsOnPostgres() async throws {
        var serverDirectory = ""
        try await Fleet.with(Self.family) { fleet in
            let server = try #require(fleet.postgresServer)
            serverDirectory = server.directory
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = AppResponses(app)
            let alice = try await fleet.parent(on: "alice-phone")
            let question = Self.question("pal")
            try await app.ask(question)
            _ = try await alice.waitForQuestion(question.id)
            let resolution = try await Self.retrying { try await alice.approve(question.id) }
            try await fleet.eventually("the app gets Alice's answer") {
                responses.responses(for: question.id).count == 1
            }
            #expect(
                !FileManager.default.fileExists(atPath: fleet.directory + "/broker/broker.sqlite"),
                "the state is in PostgreSQL, not in a SQLite file")

            // Kept by the server: a broker killed and started again still has the answer, and answering again
            // (idempotent) returns the stored resolution, not a new one.
            try await fleet.crashAndRestartBroker()
            try await fleet.waitUntilAllLinked()
            // Retried: the restarted broker may answer late on a loaded machine (answering again is idempotent).
            #expect(try await Self.retrying { try await alice.approve(question.id) } == resolution)
            #expect(try await Self.retrying { try await alice.pending() }.isEmpty)
            let decline = await #expect(throws: ErrorReply.self) { try await alice.decline(question.id) }
            #expect(decline?.code == .alreadyAnswered)
            responses.cancel()
            await alice.close()
            await app.close()
        }
        #expect(!serverDirectory.isEmpty && !FileManager.default.fileExists(atPath: serverDirectory), "server removed")
    }

    @Test func losingTheServerUnderAsksLosesNothingAndTheBrokerResumesByItself() async throws {
        try await Fleet.with(Self.family, brokerArguments: ["--metrics", "127.0.0.1:0"]) { fleet in
            let server = try #require(fleet.postgresServer)
            let probe = try OpsProbe(addressFile: fleet.directory + "/broker/metrics.address")
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let alice = try await fleet.parent(on: "alice-phone")
            #expect(try await probe.readiness().ok)
            var asked: [UUID] = []
            // Under the default ask limit (30 an hour): 24 asks, the middle third while the server is down.
            for index in 0..<24 {
                if index == 8 {
                    try await server.stop()
                    do {
                        try await fleet.eventually("/readyz says the store is away") {
                            let readiness = try await probe.readiness()
                            return !readiness.ok && readiness.detail.contains("store")
                        }
                    } catch {
                        throw FleetError("\(error)", logs: fleet.currentBroker.recentLog(lines: 60))
                    }
                }
                if index == 16 { try await server.startAgain() }
                let question = Self.question("pal-\(index)")
                try await app.ask(question)
                asked.append(question.id)
                try await Task.sleep(for: .milliseconds(50))
            }
            try await fleet.eventually("/readyz is ready again", timeout: .seconds(20)) {
                try await probe.readiness().ok
            }
            let all = asked
            try await fleet.eventually("every question reaches Alice", timeout: .seconds(30)) {
                Set(try await alice.pending().map(\.question.id)).isSuperset(of: all)
            }
            await alice.close()
            await app.close()
        }
    }

    @Test func killingTheBrokerUnderAsksLosesNothing() async throws {
        try await Fleet.with(Self.family) { fleet in
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let alice = try await fleet.parent(on: "alice-phone")
            let asking = Task {
                var asked: [UUID] = []
                for index in 0..<20 {
                    let question = Self.question("friend-\(index)")
                    try await app.ask(question)
                    asked.append(question.id)
                    try await Task.sleep(for: .milliseconds(40))
                }
                return asked
            }
            try await Task.sleep(for: .milliseconds(300))
            try await fleet.crashAndRestartBroker()
            let asked = try await asking.value
            try await fleet.eventually("every question reaches Alice", timeout: .seconds(30)) {
                Set(try await alice.pending().map(\.question.id)).isSuperset(of: asked)
            }
            await alice.close()
            await app.close()
        }
    }

    @Test func anUnreachableServerAtStartIsNamedAndTheBrokerExits78() async throws {
        let dir = try ConfigurationRefusalTests.brokerFixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Port 1 on loopback: nothing listens there.
        let url = "postgres://hearth@127.0.0.1:1/hearth"
        let (status, output) = try await ConfigurationRefusalTests.broker(
            dir, ["--store", url], environment: ["HEARTH_STORE_PASSWORD": "unused"])
        #expect(status == 78, "\(output)")
        #expect(output.contains(url) && output.contains("cannot connect"), "\(output)")
    }

    @Test func aPasswordInTheStoreURLIsRefusedNamingTheAlternatives() async throws {
        let dir = try ConfigurationRefusalTests.brokerFixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, output) = try await ConfigurationRefusalTests.broker(
            dir, ["--store", "postgres://hearth:s3cret@127.0.0.1:1/hearth"])
        #expect(status == 78, "\(output)")
        #expect(output.contains("storePasswordFile") && output.contains("HEARTH_STORE_PASSWORD"), "\(output)")
        #expect(!output.contains("s3cret"), "the password is not echoed")
    }
}
