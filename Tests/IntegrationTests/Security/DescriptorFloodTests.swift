import Foundation
import HearthClient
import HearthFleet
import HearthService
import Testing

/// Another local user (or anyone who reaches the ports) fills a daemon's descriptor table with bare TCP connections:
/// its listeners fail to accept for as long, log it, and serve again once the connections go; the daemon never exits.
@Suite("Descriptor floods", .serialized, .tags(.fleet, .slow))
struct DescriptorFloodTests {
    /// Bare TCP connections, connected without waiting (the peer may not accept them), held until released.
    final class Flood: @unchecked Sendable {
        private var descriptors: [Int32] = []

        func open(to port: Int, count: Int) {
            for _ in 0..<count {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                guard fd >= 0 else { return }
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(port).bigEndian)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                descriptors.append(fd)
            }
        }

        func release() {
            for fd in descriptors { close(fd) }
            descriptors = []
        }
    }

    /// Lowers `pid`'s soft and hard descriptor limit to what it has open plus `spare` (the hard limit too, so that
    /// nothing raises it back); returns the limit.
    static func lowerLimit(of pid: Int32, spare: Int = 32) async throws -> Int {
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        let limit = open + spare
        let prlimit = try SpawnedProcess.launch(
            "/usr/bin/prlimit", arguments: ["--pid", "\(pid)", "--nofile=\(limit):\(limit)"], keepError: true)
        #expect(await prlimit.waitUntilExit() == 0, "prlimit --pid \(pid)")
        return limit
    }

    /// How many descriptors `pid` has open now.
    static func openDescriptors(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    static func port(of endpoint: String) throws -> Int {
        try #require(endpoint.split(separator: ":").last.flatMap { Int($0) }, "no port in \(endpoint)")
    }

    @Test func aBrokerOutOfDescriptorsKeepsServingItsDevicesAndScrapes() async throws {
        try await Fleet.with(OpsEndpointTests.family, brokerArguments: ["--metrics", "127.0.0.1:0"]) { fleet in
            let probe = try OpsProbe(addressFile: fleet.directory + "/broker/metrics.address", timeout: 3)
            #expect(try await probe.liveness().ok)
            let ready = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: fleet.readyFile)))
                    as? [String: Any])
            let ingress = try Self.port(of: try #require(ready["ingress"] as? String))
            let broker = fleet.currentBroker
            let pid = try #require(broker.pid)
            let limit = try await Self.lowerLimit(of: pid)

            let flood = Flood()
            defer { flood.release() }
            flood.open(to: ingress, count: limit + 64)
            try await fleet.eventually("the broker has no descriptor left", timeout: .seconds(30)) {
                Self.openDescriptors(of: pid) >= limit
            }
            flood.open(to: try Self.port(of: probe.address), count: 64)
            // Scrapes with no descriptor left: they may wait or fail; they must not end the broker.
            for _ in 0..<3 { _ = try? await probe.liveness() }

            flood.release()
            try await fleet.eventually("the broker answers its health check again", timeout: .seconds(30)) {
                try await probe.liveness().ok
            }
            #expect(broker.isRunning, "the broker still runs")
            try await BrokerFloodTests.familyIsServed(fleet, handle: "after-the-flood")
            let log = try String(contentsOfFile: broker.logFile, encoding: .utf8)
            #expect(log.contains("cannot accept connections") && log.contains("listener=ops"), "it said so")
            let metrics = try await probe.metrics()
            #expect(metrics.value("hearth_open_files_limit", ["kind": "soft"]) == Double(limit))
            #expect(metrics.value("hearth_open_files_limit", ["kind": "hard"]) == Double(limit))
            #expect(metrics.value("hearth_http_accept_errors_total", ["listener": "ops"]) ?? 0 >= 1)
            #expect(broker.isRunning)
        }
    }

    @Test func aParentPageOutOfDescriptorsServesAgain() async throws {
        try await Fleet.with(ParentPageTests.family) { fleet in
            let (port, _) = try await ParentPageTests.address(fleet, "alice-phone")
            let daemon = try fleet.daemon("alice-phone")
            let pid = try #require(daemon.pid)
            _ = try await Self.lowerLimit(of: pid)

            let flood = Flood()
            defer { flood.release() }
            flood.open(to: port, count: 128)
            // Requests with no descriptor left: they may wait or fail; they must not end the page. (Not waiting for
            // the table to fill first: the page on FlyingFox closed every connection at the first failed accept.)
            for _ in 0..<3 { _ = try? await RawHTTP(port: port, timeout: 2).send("GET", "/") }
            flood.release()
            try await fleet.eventually("the page answers again", timeout: .seconds(30)) {
                try await ParentPageTests.page(fleet, "alice-phone").0 == 200
            }
            #expect(daemon.isRunning)
            let log = try String(contentsOfFile: daemon.logFile, encoding: .utf8)
            #expect(log.contains("cannot accept connections") && log.contains("listener=page"), "it said so")
            let alice = try await fleet.parent(on: "alice-phone")
            _ = try await alice.pending()
            await alice.close()
        }
    }
}
