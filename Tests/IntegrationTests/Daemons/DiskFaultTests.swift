import Foundation
import GRDB
import HearthCore
import HearthFleet
import HearthProtocol
import PermissionKit
import Testing

/// A broker process whose disk fills up or slows down, with real device daemons: nothing acknowledged is lost, nothing
/// is delivered twice, the broker says it is not ready while it cannot store, and devices do not resend in a storm.
@Suite("A full or slow disk under the broker", .serialized, .tags(.fleet, .slow))
struct DiskFaultTests {
    static let family = FleetSpec(
        families: [
            .init(
                "appleseed",
                members: [
                    .organizer("alice", devices: ["alice-phone"]),
                    .child("emma", devices: ["emma-tablet"]),
                ])
        ])

    static func question(_ value: String) -> PermissionQuestion<CommunicationTopic> {
        PermissionQuestion(handles: [CommunicationHandle(value: value, kind: .custom)])
    }

    /// The broker's state on a tmpfs of 8 MiB (or a loop-mounted image), filled while the child's app asks.
    @Test func aFullDiskGetsTypedErrorsAndNotReadyAndTheBrokerResumesLosingNothing() async throws {
        let fleet = try Fleet.prepare(
            Self.family, brokerArguments: ["--metrics", "127.0.0.1:0", "--ask-limit", "1000/3600"])
        let disk: SmallFilesystem
        do {
            disk = try await SmallFilesystem.mount(at: fleet.directory + "/broker", megabytes: 8)
        } catch {
            await fleet.shutdown()
            throw error
        }
        do {
            try await fleet.start()
            try await fillAndFree(fleet, disk)
        } catch {
            let logs = fleet.logs()
            await fleet.shutdown()
            await disk.unmount()
            try? FileManager.default.removeItem(atPath: fleet.directory)
            Issue.record("logs: \(logs)")
            throw error
        }
        await fleet.shutdown()
        await disk.unmount()
        try? FileManager.default.removeItem(atPath: fleet.directory)
    }

    private func fillAndFree(_ fleet: Fleet, _ disk: SmallFilesystem) async throws {
        let probe = try OpsProbe(addressFile: fleet.directory + "/broker/metrics.address")
        let app = fleet.app("com.example.chat", on: "emma-tablet")
        let responses = AppResponses(app)
        let alice = try await fleet.parent(on: "alice-phone")
        var asked: [UUID] = []
        let first = Self.question("pal-0")
        try await app.ask(first)
        asked.append(first.id)
        _ = try await alice.waitForQuestion(first.id)

        try disk.fill(disk.directory + "/filler")
        // SQLite may still have room in its log for a few commits: ask until the broker says its disk is full.
        var readiness = try await probe.readiness()
        for index in 1...60 where readiness.ok {
            let question = Self.question("pal-\(index)")
            try await app.ask(question)
            asked.append(question.id)
            try await Task.sleep(for: .milliseconds(200))
            readiness = try await probe.readiness()
        }
        #expect(!readiness.ok && readiness.detail.contains("full"), "/readyz: \(readiness.detail)")
        let metrics = try await probe.metrics()
        #expect(metrics.value("hearth_broker_store_unavailable") == 1)
        #expect((metrics.value("hearth_broker_errors_total", ["code": "brokerUnavailable"]) ?? 0) >= 1)
        let status = try await ExecutableRun.run(
            "hearthctl", ["status", "--endpoint", "family-broker=\(probe.address)"])
        #expect(status.output.contains("NOT READY (not ok: store cannot store: the disk"), "\(status.output)")

        // While the disk is full: the outbox resends, one question at a time, after 1 s, then 2, 4, at most 8 s.
        let refused = [Self.question("refused-1"), Self.question("refused-2")]
        let asksBefore = metrics.total("hearth_broker_asks_total")
        for question in refused {
            try await app.ask(question)
            asked.append(question.id)
        }
        try await Task.sleep(for: .seconds(5))
        let resent = try await probe.metrics().total("hearth_broker_asks_total") - asksBefore
        print("full disk: \(asked.count - 2) questions asked until /readyz said full; \(Int(resent)) asks in 5 s after")
        // Measured: 3-4 with the backoff, 7 with a retry every second.
        #expect(resent >= 1 && resent <= 5, "asks the broker received in 5 s of a full disk: \(resent)")
        let shown = Set(try await alice.pending().map(\.question.id))
        #expect(shown.isDisjoint(with: refused.map(\.id)), "a refused batch publishes nothing")
        #expect(try await probe.liveness().ok, "the broker stays up")

        try FileManager.default.removeItem(atPath: disk.directory + "/filler")
        try await fleet.eventually("/readyz is ready again", timeout: .seconds(20)) { try await probe.readiness().ok }
        #expect(try await probe.metrics().value("hearth_broker_store_unavailable") == 0)
        try await answeredAndDeliveredOnce(asked, fleet: fleet, alice: alice, responses: responses)
        responses.cancel()
        await alice.close()
        await app.close()
    }

    /// Every question reaches Alice, her answers reach the app once each, and every log is gapless.
    private func answeredAndDeliveredOnce(
        _ asked: [UUID], fleet: Fleet, alice: ParentConsole, responses: AppResponses
    ) async throws {
        try await fleet.eventually("every acknowledged question reaches Alice", timeout: .seconds(30)) {
            Set(try await alice.pending().map(\.question.id)).isSuperset(of: asked)
        }
        for id in asked { _ = try await alice.approve(id) }
        try await fleet.eventually("the app gets every answer", timeout: .seconds(30)) {
            Set(responses.responses.map(\.question.id)).isSuperset(of: asked)
        }
        try await Task.sleep(for: .seconds(1))
        for id in asked { #expect(responses.responses(for: id).count == 1, "question \(id) delivered once") }
        for (member, count, head) in try Self.logs(fleet) {
            #expect(count == head, "\(member)'s log holds 1…\(head) without a gap (\(count) events)")
        }
    }

    /// Each member's stored event count and highest sequence number, from the broker's file (read-only).
    static func logs(_ fleet: Fleet) throws -> [(String, Int64, Int64)] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: fleet.directory + "/broker/broker.sqlite", configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT member_id, COUNT(*), MAX(seq) FROM event_log GROUP BY member_id").map {
                ($0[0], $0[1], $0[2])
            }
        }
    }

    /// Each commit held for 3 s (the broker's hidden `--commit-delay-file`) while the app asks: the broker receives
    /// a bounded number of commands, every question is stored once and answered once.
    @Test func aSlowDiskDoesNotMakeDevicesResendInAStorm() async throws {
        let delayFile = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-delay-\(UUID())").path
        try "0".write(toFile: delayFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: delayFile) }
        try await Fleet.with(
            Self.family, brokerArguments: ["--metrics", "127.0.0.1:0", "--commit-delay-file", delayFile]
        ) { fleet in
            let probe = try OpsProbe(addressFile: fleet.directory + "/broker/metrics.address")
            let app = fleet.app("com.example.chat", on: "emma-tablet")
            let responses = AppResponses(app)
            let alice = try await fleet.parent(on: "alice-phone")
            let before = try await probe.metrics()
            try "3".write(toFile: delayFile, atomically: true, encoding: .utf8)
            let slowSince = ContinuousClock.now
            let asked = [Self.question("slow-1"), Self.question("slow-2"), Self.question("slow-3")]
            for question in asked { try await app.ask(question) }
            try await Task.sleep(until: slowSince + .seconds(12))
            try "0".write(toFile: delayFile, atomically: true, encoding: .utf8)
            let ids = asked.map(\.id)
            try await answeredAndDeliveredOnce(ids, fleet: fleet, alice: alice, responses: responses)
            let after = try await probe.metrics()
            let asks = after.total("hearth_broker_asks_total") - before.total("hearth_broker_asks_total")
            let commands = after.total("hearth_broker_commands_total") - before.total("hearth_broker_commands_total")
            let seconds = ContinuousClock.now - slowSince
            print("slow disk: 3 questions, \(Int(asks)) asks and \(Int(commands)) commands received in \(seconds)")
            // Measured: 5 asks and 24 commands in all (13 s, two devices).
            #expect(asks <= 9, "asks received for 3 questions over 12 s of 3 s commits: \(asks)")
            // Per device and second: one ping, or one hello while the link is being made again; plus syncs.
            #expect(commands <= 48, "commands received: \(commands)")
            responses.cancel()
            await alice.close()
            await app.close()
        }
    }
}
