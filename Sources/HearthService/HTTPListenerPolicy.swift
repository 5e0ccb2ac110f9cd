import Foundation

/// What an `HTTPListener` refuses before any handler sees a request, and the headers it adds to every response.
public struct HTTPListenerPolicy: Sendable {
    /// Which `Host` header values are accepted (with the listener's own port): a browser sends the name it resolved,
    /// so a web page that rebinds its own name to 127.0.0.1 (DNS rebinding) still sends its own name, and is refused.
    public enum HostRule: Sendable {
        /// `127.0.0.1:PORT` or `localhost:PORT` only: a listener on loopback.
        case loopback
        /// Those, `[::1]:PORT`, or any IP address literal with the port: a listener an operator may also reach by
        /// address from another host (a Prometheus server). Never a name other than `localhost`.
        case addressLiteral
    }

    /// A request whose body is announced or grows longer is answered 413 and its connection closed, unread.
    public var maxBodyBytes: Int
    public var hosts: HostRule
    /// A connection that has not sent a whole request within this is closed (a slow sender holds no descriptor).
    public var requestTimeout: Duration
    /// Added to every response, refusals included.
    public var headers: [(String, String)]

    public init(
        maxBodyBytes: Int = 64 * 1024, hosts: HostRule = .loopback, requestTimeout: Duration = .seconds(10),
        headers: [(String, String)] = HTTPListenerPolicy.frameDenial
    ) {
        self.maxBodyBytes = maxBodyBytes
        self.hosts = hosts
        self.requestTimeout = requestTimeout
        self.headers = headers
    }

    /// No page may frame the response (clickjacking), nor may a browser guess its type.
    public static let frameDenial: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
        ("X-Frame-Options", "DENY"),
        ("X-Content-Type-Options", "nosniff"),
        ("Cache-Control", "no-store"),
    ]

    /// Whether `host` (a `Host` header value) names this listener on `port`.
    public func accepts(host: String?, port: Int) -> Bool {
        guard let host else { return false }
        let value = host.lowercased()
        let suffix = ":\(port)"
        guard value.hasSuffix(suffix) else { return false }
        let name = String(value.dropLast(suffix.count))
        if name == "127.0.0.1" || name == "localhost" { return true }
        guard hosts == .addressLiteral else { return false }
        if name.hasPrefix("[") && name.hasSuffix("]") {
            var address = in6_addr()
            return inet_pton(AF_INET6, String(name.dropFirst().dropLast()), &address) == 1
        }
        var address = in_addr()
        return inet_pton(AF_INET, name, &address) == 1
    }
}
