public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads a daemon's HTTP ops endpoint (`--metrics HOST:PORT`): its metrics, liveness and readiness.
public struct OpsProbe: Sendable {
    /// `HOST:PORT`, as in a daemon's `metrics.address` file.
    public var address: String
    public var timeout: TimeInterval

    public init(address: String, timeout: TimeInterval = 2) {
        self.address = address
        self.timeout = timeout
    }

    /// The probe for the address a daemon wrote to `file` (`<state>/metrics.address`).
    public init(addressFile file: String, timeout: TimeInterval = 2) throws {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ClientError("no ops endpoint address in \(file); is the daemon running with --metrics?")
        }
        self.init(address: text.trimmingCharacters(in: .whitespacesAndNewlines), timeout: timeout)
    }

    /// GET `path`: the status code and the body.
    public func get(_ path: String) async throws -> (status: Int, body: String) {
        guard let url = URL(string: "http://\(address)\(path)") else { throw ClientError("bad address '\(address)'") }
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// `/metrics`, parsed.
    public func metrics() async throws -> MetricsSnapshot {
        let (status, body) = try await get("/metrics")
        guard status == 200 else { throw ClientError("GET http://\(address)/metrics: HTTP \(status)") }
        return MetricsSnapshot(text: body)
    }

    /// `/healthz`: alive or not, and why.
    public func liveness() async throws -> (ok: Bool, detail: String) {
        let (status, body) = try await get("/healthz")
        return (status == 200, body.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// `/readyz`: ready or not, and why.
    public func readiness() async throws -> (ok: Bool, detail: String) {
        let (status, body) = try await get("/readyz")
        return (status == 200, body.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
