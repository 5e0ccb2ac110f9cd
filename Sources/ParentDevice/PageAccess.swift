import Foundation
import HearthService
import Synchronization

/// Who may use parent-device's page, as notebook servers do it. `page.url` carries a one-time token: the first
/// `GET` with it is exchanged for a session cookie (`HttpOnly; SameSite=Strict`) and a new token is written to
/// `page.url`, so a token seen in a browser's command line (`xdg-open URL`, readable by every local user in
/// `/proc/*/cmdline`) is spent by the time anyone else reads it. `page.token` is for scripts (`Authorization:
/// Bearer`) and never travels in a URL.
final class PageAccess: Sendable {
    /// What let a request in.
    enum Authority: Equatable {
        case bearer
        case session
        case urlToken
    }

    /// How many browser sessions are kept; the oldest is forgotten past that.
    static let maxSessions = 16

    let bearer: String
    private let state: Mutex<(urlToken: String, sessions: [String])>

    init() {
        bearer = Self.random()
        state = Mutex((Self.random(), []))
    }

    /// The token `page.url` carries now.
    var urlToken: String { state.withLock { $0.urlToken } }

    /// Each way `request` proves it may use the page, strongest first (empty: none).
    func authorities(of request: HTTPListenerRequest, cookie: String) -> [Authority] {
        var found: [Authority] = []
        if let value = request.headers["authorization"], value.hasPrefix("Bearer "),
            Self.same(String(value.dropFirst(7)), bearer)
        {
            found.append(.bearer)
        }
        let (urlToken, sessions) = state.withLock { ($0.urlToken, $0.sessions) }
        if let value = request.cookie(cookie), sessions.contains(where: { Self.same(value, $0) }) {
            found.append(.session)
        }
        if let value = request.query["token"], Self.same(value, urlToken) { found.append(.urlToken) }
        return found
    }

    /// Spends the URL token if `offered` is it: returns a new session and the next URL token, or nil if `offered` is
    /// not (or no longer) the URL token.
    func exchange(_ offered: String) -> (session: String, next: String)? {
        state.withLock { state in
            guard Self.same(offered, state.urlToken) else { return nil }
            let session = Self.random()
            state.urlToken = Self.random()
            state.sessions.append(session)
            if state.sessions.count > Self.maxSessions { state.sessions.removeFirst() }
            return (session, state.urlToken)
        }
    }

    /// 256 random bits in hexadecimal.
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// Compares in time independent of where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
