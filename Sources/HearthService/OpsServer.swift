import Foundation
import HearthCore
public import Logging
public import ServiceLifecycle
import Synchronization

/// The daemon's HTTP endpoint for operators: `/metrics` (Prometheus text), `/healthz` (liveness) and `/readyz`
/// (readiness), on an `HTTPListener`: a `Host` that is not an address literal or `localhost` is refused (a web page
/// rebinding its name to this host reads nothing), no request has a body, and a failing `accept` (out of
/// descriptors) is waited out, never the end of the daemon.
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

    /// Listens until the daemon shuts down. Only not listening at all ends it early (a setting to fix); nothing a
    /// client does, and no failing `accept`, does.
    public func run() async throws {
        let listener = HTTPListener(
            name: "ops", policy: HTTPListenerPolicy(maxBodyBytes: 0, hosts: .addressLiteral), logger: logger
        ) { [self] request in respond(to: request) }
        let port: Int
        do {
            port = try await listener.start(host: address.host, port: Int(address.port))
        } catch {
            // A port in use or an address not on this host: a setting to fix, refused like any other.
            throw ConfigurationError(source: "metrics", key: "metrics", reason: "cannot listen on \(address): \(error)")
        }
        let listening = ListenAddress(host: address.host, port: UInt16(port))
        defer { if let addressFile { try? FileManager.default.removeItem(atPath: addressFile) } }
        if let addressFile {
            let directory = (addressFile as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            do {
                try "\(listening)\n".write(toFile: addressFile, atomically: true, encoding: .utf8)
            } catch {
                logger.error("metrics address not written", metadata: ["file": "\(addressFile)", "error": "\(error)"])
            }
        }
        // Published after the file: whoever sees the bound address also finds it written.
        bound.withLock { $0 = listening }
        logger.info("metrics and health checks listening", metadata: ["address": "http://\(listening)"])
        // Until the group shuts down (or cancels): gracefulShutdown() throws on cancellation, either ends here.
        try? await gracefulShutdown()
        await listener.stop()
    }

    private func respond(to request: HTTPListenerRequest) -> HTTPListenerResponse {
        switch (request.method, request.path) {
        case ("GET", "/metrics"):
            FileLimit.record()
            return HTTPListenerResponse(
                status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                body: Data(MetricsExport.render()))
        case ("GET", "/healthz"):
            return Self.respond(live())
        case ("GET", "/readyz"):
            return stopping.load(ordering: .relaxed)
                ? Self.respond(HealthStatus(ok: false, "shutting down")) : Self.respond(ready())
        default:
            return .text(404, "404: /metrics, /healthz and /readyz only")
        }
    }

    private static func respond(_ status: HealthStatus) -> HTTPListenerResponse {
        .text(status.ok ? 200 : 503, (status.ok ? "ok: " : "not ok: ") + status.detail)
    }
}
