import HearthCore

/// The apps connected to child-device's local socket: which bundle id each connection (routing id) named in its
/// hello, and when it was last heard from.
///
/// ZeroMQ's ROUTER does not say which peer left, so a session is forgotten when it goes quiet: PermissionKit says
/// hello again every 10 s while an app iterates its responses, and a connection silent for `idleLimit` is dropped.
/// Its next request gets `helloRequired`, to which PermissionKit answers with a hello and a retry. Past `capacity`
/// sessions, the least recently heard one goes first.
struct AppSessions: Sendable {
    typealias Instant = ContinuousClock.Instant

    private struct Session {
        var app: BundleID
        var seen: Instant
    }

    let idleLimit: Duration
    let capacity: Int
    private var sessions: [[UInt8]: Session] = [:]
    private var lastSweep: Instant?

    init(idleLimit: Duration, capacity: Int) {
        self.idleLimit = idleLimit
        self.capacity = capacity
    }

    /// The number of sessions kept.
    var count: Int { sessions.count }

    /// Binds connection `route` to `app` (a new hello replaces the app it named before).
    mutating func hello(_ route: [UInt8], app: BundleID, at now: Instant) {
        sessions[route] = Session(app: app, seen: now)
        sweep(at: now)
        if sessions.count > capacity, let oldest = sessions.min(by: { $0.value.seen < $1.value.seen })?.key {
            sessions[oldest] = nil
        }
    }

    /// The app of connection `route`, marking it heard from; nil when it never said hello or went quiet too long.
    mutating func app(of route: [UInt8], at now: Instant) -> BundleID? {
        guard let session = sessions[route] else { return nil }
        guard session.seen.duration(to: now) < idleLimit else {
            sessions[route] = nil
            return nil
        }
        sessions[route]?.seen = now
        return session.app
    }

    /// The live connections of `app`.
    func routes(of app: BundleID, at now: Instant) -> [[UInt8]] {
        sessions.filter { $0.value.app == app && $0.value.seen.duration(to: now) < idleLimit }.map(\.key)
    }

    /// Drops the quiet sessions, at most twice per idle limit (each hello would otherwise scan them all).
    private mutating func sweep(at now: Instant) {
        if let lastSweep, lastSweep.duration(to: now) < idleLimit / 2 { return }
        lastSweep = now
        let limit = idleLimit
        sessions = sessions.filter { $0.value.seen.duration(to: now) < limit }
    }
}
