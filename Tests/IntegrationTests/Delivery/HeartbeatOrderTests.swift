import Foundation
import Testing

/// A heartbeat never announces a head whose events are not yet on their way: with heartbeats every 50 ms racing a
/// broker busy committing, simulated devices that apply every event they get (the load generator's) must never see a
/// heartbeat ahead of their events, and so never sync. On a quiet loopback, far from any high-water mark, pub/sub loses
/// nothing, so a sync here is the broker's fault (a heartbeat that read a head the writer had advanced before queuing
/// its events; docs/decisions/0015-heads-after-delivery.md).
@Suite("Heartbeats behind their events, across real processes", .tags(.fleet))
struct HeartbeatOrderTests {
    struct Report: Decodable {
        struct Run: Decodable {
            var cycles: Int
            var errors: Int
            var lost: Int
            var duplicated: Int
            var redelivered: Int
            var gapsSynced: Int
        }
        var broker: Run
    }

    @Test
    func noDeviceSyncsUnderLoadWithFrequentHeartbeats() async throws {
        let directory = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let json = directory + "/report.json"
        let (status, output) = try await ExecutableRun.run(
            "hearth-loadtest",
            [
                "cycle", "--families", "40", "--parents", "2", "--closed", "--in-flight", "128", "--duration", "8",
                "--warmup", "1", "--quiet", "--json", json, "--broker-arg=--heartbeat", "--broker-arg=0.05",
            ], timeout: .seconds(240))
        #expect(status == 0, "hearth-loadtest failed:\n\(output)")
        let run = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: json))).broker
        #expect(run.cycles > 0, "\(output)")
        #expect(run.errors == 0 && run.lost == 0 && run.duplicated == 0, "\(output)")
        #expect(run.gapsSynced == 0, "a device saw a heartbeat ahead of its events, or a gap\n\(output)")
        #expect(run.redelivered == 0, "\(output)")
    }
}
