import Foundation
import HearthService
import Logging
import Metrics
import ServiceLifecycle
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct OpsServerTests {
    static func get(_ address: ListenAddress, _ path: String) async throws -> (Int, String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://\(address)\(path)")!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func servesMetricsLivenessAndReadinessOverHTTP() async throws {
        MetricsExport.bootstrap()
        let counter = Counter(label: "hearth_test_ops_total")
        counter.increment(by: 3)
        let ready = Atomic(false)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "hearth-ops-\(UUID().uuidString)/metrics.address"
        ).path
        let server = OpsServer(
            address: ListenAddress(host: "127.0.0.1", port: 0), addressFile: file, logger: Logger(label: "test"),
            ready: { HealthStatus(ok: ready.load(ordering: .relaxed), "linked?") })
        let group = ServiceGroup(services: [server], logger: Logger(label: "test"))
        let running = Task { try await group.run() }
        var address: ListenAddress?
        for _ in 0..<200 where address == nil {
            address = server.boundAddress
            if address == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let bound = try #require(address)
        #expect(bound.port != 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "\(bound)\n")

        let (status, metrics) = try await Self.get(bound, "/metrics")
        #expect(status == 200)
        #expect(metrics.contains("hearth_test_ops_total 3"))
        #expect(try await Self.get(bound, "/healthz").0 == 200)
        #expect(try await Self.get(bound, "/readyz") == (503, "not ok: linked?\n"))
        ready.store(true, ordering: .relaxed)
        #expect(try await Self.get(bound, "/readyz") == (200, "ok: linked?\n"))
        server.markStopping()
        #expect(try await Self.get(bound, "/readyz").0 == 503)
        #expect(try await Self.get(bound, "/nothing").0 == 404)

        await group.triggerGracefulShutdown()
        try await running.value
        #expect(!FileManager.default.fileExists(atPath: file))
    }
}
