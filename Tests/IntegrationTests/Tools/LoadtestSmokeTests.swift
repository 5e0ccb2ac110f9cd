import Foundation
import HearthFleet
import Testing

/// A short run of the load-test tool as a user runs it: it launches a broker and the raw relay, drives simulated
/// CURVE devices through whole ask → approve → response cycles, and writes its JSON report. No timing is asserted:
/// only that cycles completed and that nothing was lost, duplicated or refused.
@Suite("hearth-loadtest smoke", .tags(.fleet, .slow))
struct LoadtestSmokeTests {
    struct Report: Decodable {
        struct Run: Decodable {
            var cycles: Int
            var sent: Int
            var errors: Int
            var lost: Int
            var duplicated: Int
            var devices: Int
            var latencyMicroseconds: Latency
        }
        struct Latency: Decodable {
            var count: Int
            var p50: Int
            var max: Int
        }
        var broker: Run
        var baseline: Run?
        var brokerToBaseline: Double?
    }

    /// With `--random-ids` too: responses are still matched to their asks (a cycle completes only then).
    @Test(arguments: [false, true])
    func cycleRunAgainstALaunchedBrokerAndTheRelay(randomIDs: Bool) async throws {
        let bin = try BinaryLocator.directory()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-loadtest-smoke-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let json = directory + "/report.json"
        let arguments =
            [
                "cycle", "--families", "3", "--children", "2", "--parents", "2", "--rate", "40", "--duration", "2",
                "--warmup", "1",
                "--think-time", "5", "--baseline", "--quiet", "--json", json,
            ] + (randomIDs ? ["--random-ids"] : [])
        let (status, text) = try await ExecutableRun.run(
            path: bin + "/hearth-loadtest", arguments, timeout: .seconds(300))
        #expect(status == 0, "hearth-loadtest failed:\n\(text)")

        let report = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: json)))
        for (name, run) in [("broker", report.broker), ("relay", report.baseline)] {
            guard let run else {
                Issue.record("no \(name) run in the report:\n\(text)")
                continue
            }
            #expect(run.devices == 12, "\(name)")
            #expect(run.cycles > 0, "\(name): no cycle completed\n\(text)")
            #expect(run.latencyMicroseconds.count > 0, "\(name)")
            #expect(run.latencyMicroseconds.p50 <= run.latencyMicroseconds.max, "\(name)")
            #expect(run.errors == 0, "\(name): \(text)")
            #expect(run.lost == 0, "\(name): \(text)")
            #expect(run.duplicated == 0, "\(name): \(text)")
        }
        #expect(report.brokerToBaseline != nil)
    }

    /// `connect` as a user runs it: worker processes connect every device and hold them until told to stop, then exit.
    @Test func connectHoldsEveryDeviceFromItsWorkers() async throws {
        let directory = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let json = directory + "/connect.json"
        let (status, text) = try await ExecutableRun.run(
            "hearth-loadtest",
            [
                "connect", "--families", "60", "--questions", "1", "--devices", "50", "--workers", "2", "--hold", "0.5",
                "--json", json,
            ], timeout: .seconds(300))
        #expect(status == 0, "hearth-loadtest connect failed:\n\(text)")
        #expect(text.contains("50 of 50 devices connected"), "\(text)")
        let report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        #expect(report?["devicesConnected"] as? Int == 50, "\(String(describing: report))")
    }
}
