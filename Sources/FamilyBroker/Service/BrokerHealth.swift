import HearthService
import Synchronization

/// What the broker answers to liveness and readiness probes.
final class BrokerHealth: Sendable {
    private enum Phase {
        case starting
        case ready(String)
        case stopping
        case stopped
    }

    private let phase = Mutex(Phase.starting)
    /// Why the store cannot store now (a PostgreSQL server that went away, a full or failing disk); nil while it can.
    private let storeProblem = Mutex<String?>(nil)
    private let lastBeat = Mutex(ContinuousClock.now)
    private let beatWindow: Duration

    init(heartbeatInterval: Duration) {
        // Generous: a busy machine may delay a heartbeat, a hung process stops them.
        beatWindow = max(heartbeatInterval * 5, .seconds(10))
    }

    func markReady(ingress: String, egress: String) {
        phase.withLock { $0 = .ready("listening on \(ingress) and \(egress), database open") }
    }
    func markStopping() { phase.withLock { $0 = .stopping } }
    func markStopped() { phase.withLock { $0 = .stopped } }

    /// Graceful shutdown has begun: no new batch is started.
    var isStopping: Bool {
        switch phase.withLock({ $0 }) {
        case .stopping, .stopped: true
        default: false
        }
    }
    func beat() { lastBeat.withLock { $0 = .now } }

    /// Records whether the store can store (`problem` nil) or why not.
    func store(problem: String?) { storeProblem.withLock { $0 = problem } }

    /// Ready once both sockets are bound and the database is open, and while the store can store.
    var readiness: HealthStatus {
        if let problem = storeProblem.withLock({ $0 }) {
            return HealthStatus(ok: false, "store cannot store: \(problem)")
        }
        return switch phase.withLock({ $0 }) {
        case .starting: HealthStatus(ok: false, "starting: binding sockets, opening the database")
        case .ready(let detail): HealthStatus(ok: true, detail)
        case .stopping: HealthStatus(ok: false, "shutting down")
        case .stopped: HealthStatus(ok: false, "stopped")
        }
    }

    /// Alive while the heartbeat task keeps running: a hung process stops it.
    var liveness: HealthStatus {
        if case .starting = phase.withLock({ $0 }) { return HealthStatus(ok: true, "starting") }
        let since = ContinuousClock.now - lastBeat.withLock { $0 }
        let milliseconds = since.components.seconds * 1000 + since.components.attoseconds / 1_000_000_000_000_000
        return since <= beatWindow
            ? HealthStatus(ok: true, "last heartbeat \(milliseconds) ms ago")
            : HealthStatus(ok: false, "no heartbeat for \(milliseconds) ms")
    }
}
