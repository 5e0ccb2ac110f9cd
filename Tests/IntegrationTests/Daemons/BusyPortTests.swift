import Foundation
import HearthFleet
import HearthService
import HearthTransport
import Testing

/// A daemon whose port another process holds says so in one line and exits 75 (EX_TEMPFAIL), which systemd's
/// `Restart=on-failure` retries, not 78 (EX_CONFIG), which the units keep from restarting.
@Suite("A port in use", .tags(.fleet))
struct BusyPortTests {
    /// A TCP port on 127.0.0.1 held by a listening socket of this process until `close()`.
    final class HeldPort: Sendable {
        let descriptor: Int32
        let port: UInt16

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.descriptor = descriptor
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    bind(descriptor, address, length) == 0 && listen(descriptor, 1) == 0
                        && getsockname(descriptor, address, &length) == 0
                }
            }
            guard descriptor >= 0, bound else { throw FleetError("could not hold a port: errno \(errno)") }
            port = UInt16(bigEndian: address.sin_port)
        }

        func close() { _ = Glibc.close(descriptor) }
    }

    static func expectRetriable(_ status: Int32, _ output: String, _ what: Comment) {
        #expect(status == AddressInUse.exitStatus, what)
        let lines = output.split(separator: "\n").filter { $0.contains("in use by another process") }
        #expect(lines.count == 1, "one line says so: \(output)")
    }

    @Test func theBrokerOnABusyPortExitsForARetry() async throws {
        let dir = try ConfigurationRefusalTests.brokerFixture()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let held = try HeldPort()
        defer { held.close() }
        let (metrics, metricsOutput) = try await ConfigurationRefusalTests.broker(
            dir, ["--metrics", "127.0.0.1:\(held.port)"])
        Self.expectRetriable(metrics, metricsOutput, "its ops endpoint's port")
        let (status, output) = try await ExecutableRun.run(
            "family-broker",
            [
                "--state", dir + "/state", "--families", dir + "/families.yaml",
                "--ingress", "tcp://127.0.0.1:\(held.port)", "--egress", "tcp://127.0.0.1:0",
            ])
        Self.expectRetriable(status, output, "its ingress port")
    }

    @Test func aDeviceOnABusyPortExitsForARetry() async throws {
        let dir = try ExecutableRun.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try KeyFiles.generate(at: dir + "/device")
        _ = try KeyFiles.generate(at: dir + "/broker")
        let held = try HeldPort()
        defer { held.close() }
        for daemon in ["child-device", "parent-device"] {
            let (status, output) = try await ExecutableRun.run(
                daemon,
                [
                    "--key-file", dir + "/device.key", "--broker-key-file", dir + "/broker.pub",
                    "--state", dir + "/\(daemon)", "--socket", dir + "/\(daemon).sock",
                    "--metrics", "127.0.0.1:\(held.port)",
                ])
            Self.expectRetriable(status, output, "\(daemon)'s ops endpoint's port")
        }
    }
}
