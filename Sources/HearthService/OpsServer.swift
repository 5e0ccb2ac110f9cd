import FlyingFox
import Foundation
import HearthCore
import Logging
import ServiceLifecycle
import Synchronization

/// The daemon's HTTP endpoint for operators: `/metrics` (Prometheus text), `/healthz` (liveness) and `/readyz`
/// (readiness), on FlyingFox, a small HTTP/1.1 server on Swift concurrency with no dependencies of its own.
///
/// Once listening it writes its address (`HOST:PORT`, the port picked when 0 was asked) to `addressFile`, if given,
/// and removes the file when it stops.
public final class OpsServer: Service, Sendable {
    public let address: ListenAddress
    public let addressFile: String?
    private let live: @Sendable () -> HealthStatus
    private let ready: @Sendable () -> HealthStatus
    private let logger: Logger
    private let stopping = Atomic(false)
    private let bound = Mutex<ListenAddress?>(nil)

    public init(
        address: ListenAddress, addressFile: String? = nil, logger: Logger,
        live: @escaping @Sendable () -> HealthStatus = { HealthStatus(ok: true, "running") },
        ready: @escaping @Sendable () -> HealthStatus
    ) {
        self.address = address
        self.addressFile = addressFile
        self.logger = logger
        self.live = live
        self.ready = ready
    }

    /// The address it listens on, once it does.
    public var boundAddress: ListenAddress? { bound.withLock { $0 } }

    /// From now on `/readyz` answers 503: the daemon is shutting down and should get no new work.
    public func markStopping() { stopping.store(true, ordering: .relaxed) }

    public func run() async throws {
        let server = HTTPServer(
            address: try .inet(ip4: address.host, port: address.port), timeout: 10, logger: .disabled)
        await server.appendRoute("GET /metrics") { _ in
            HTTPResponse(
                statusCode: .ok, headers: [HTTPHeader("Content-Type"): "text/plain; version=0.0.4; charset=utf-8"],
                body: Data(MetricsExport.render()))
        }
        await server.appendRoute("GET /healthz") { [live] _ in Self.respond(live()) }
        await server.appendRoute("GET /readyz") { [self] _ in
            stopping.load(ordering: .relaxed)
                ? Self.respond(HealthStatus(ok: false, "shutting down")) : Self.respond(ready())
        }
        defer { if let addressFile { try? FileManager.default.removeItem(atPath: addressFile) } }
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [self] in
                    do {
                        try await server.run()
                    } catch {
                        // Stopping ends run() with an error too; only one before listening is a problem.
                        guard boundAddress == nil else { return }
                        // A port in use or an address not on this host: a setting to fix, refused like any other.
                        throw ConfigurationError(
                            source: "metrics", key: "metrics", reason: "cannot listen on \(address): \(error)")
                    }
                }
                group.addTask { [self] in
                    try await server.waitUntilListening(timeout: 30)
                    guard case .ip4(let host, let port) = await server.listeningAddress else { return }
                    let listening = ListenAddress(host: host, port: port)
                    bound.withLock { $0 = listening }
                    if let addressFile {
                        let directory = (addressFile as NSString).deletingLastPathComponent
                        if !directory.isEmpty {
                            try FileManager.default.createDirectory(
                                atPath: directory, withIntermediateDirectories: true)
                        }
                        try "\(listening)\n".write(toFile: addressFile, atomically: true, encoding: .utf8)
                    }
                    logger.info("metrics and health checks listening", metadata: ["address": "http://\(listening)"])
                }
                // The first error (not listening) ends the group; otherwise both finish: published, then stopped.
                while try await group.next() != nil {}
            }
        } onGracefulShutdown: {
            Task { await server.stop(timeout: 1) }
        }
    }

    private static func respond(_ status: HealthStatus) -> HTTPResponse {
        HTTPResponse(
            statusCode: status.ok ? .ok : .serviceUnavailable,
            headers: [HTTPHeader("Content-Type"): "text/plain; charset=utf-8"],
            body: Data(((status.ok ? "ok: " : "not ok: ") + status.detail + "\n").utf8))
    }
}
