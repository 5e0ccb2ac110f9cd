package import BrokerCore
import BrokerSQLite
import Foundation
import HearthCore
import HearthProtocol
import Metrics
import Synchronization

/// The broker's metrics (swift-metrics; exported in Prometheus form by the daemon), counted from the frames and
/// the engine's output around each batch, so the engine itself stays free of instrumentation. `package`: hearth-loadtest's
/// engine benchmark records as the broker does.
package final class BrokerMetrics: Sendable {
    /// Every command read from ingress, duplicates and link commands (hello, ping, sync) included.
    private let commandsReceived = Counter(label: "hearth_broker_commands_total")
    private let asks = Counter(label: "hearth_broker_asks_total")
    private let answers = Counter(label: "hearth_broker_answers_total")
    private let syncs = Counter(label: "hearth_broker_syncs_total")
    private let parentAnswers = Counter(label: "hearth_broker_parent_answers_total")
    private let defaultResponses: [Resolution.Reason: Counter]
    private let errors: [ErrorCode: Counter]
    private let events = Counter(label: "hearth_broker_events_total")
    private let dropped = Counter(label: "hearth_broker_dropped_messages_total")
    private let backgroundCheckpoints = Counter(
        label: "hearth_broker_checkpoints_total", dimensions: [("by", "background")])
    private let writerCheckpoints = Counter(label: "hearth_broker_checkpoints_total", dimensions: [("by", "writer")])
    private let countedCheckpoints = Mutex(WALCheckpointer.Counts())
    private let commit = Metrics.Timer(label: "hearth_broker_commit_seconds")
    private let batchSize = Recorder(label: "hearth_broker_batch_commands", aggregate: true)
    private let connected = Gauge(label: "hearth_broker_connected_devices")
    private let subscribed = Gauge(label: "hearth_broker_subscribed_members")
    /// 1 while the store cannot store (a full or failing disk, an unreachable PostgreSQL server), else 0.
    private let storeDown = Gauge(label: "hearth_broker_store_unavailable")
    private let lastHeard = Mutex<[DeviceID: ContinuousClock.Instant]>([:])
    /// Devices cut off for sending what no device sends, by the socket it came on.
    private let hostileCommands = Counter(
        label: "hearth_broker_hostile_devices_total", dimensions: [("on", "commands")])
    private let hostileSubscriptions = Counter(
        label: "hearth_broker_hostile_devices_total", dimensions: [("on", "events")])

    /// A device counts as connected while it was heard from this recently: devices ping every second.
    static let connectedWindow: Duration = .seconds(5)

    package init() {
        var defaults: [Resolution.Reason: Counter] = [:]
        for reason in Resolution.Reason.allCases where reason != .parentAnswered {
            defaults[reason] = Counter(
                label: "hearth_broker_default_responses_total", dimensions: [("reason", "\(reason)")])
        }
        defaultResponses = defaults
        var errors: [ErrorCode: Counter] = [:]
        for code in ErrorCode.allCases {
            errors[code] = Counter(label: "hearth_broker_errors_total", dimensions: [("code", "\(code)")])
        }
        self.errors = errors
    }

    /// Counts a batch of commands by type (read from the header: counting must not decode every frame again), error
    /// replies by code, the batch's size and the time to run and commit it, and who was heard from.
    func record(_ commands: [CommandIntake.Inbound], replies: [CommandIntake.Reply], duration: Duration) {
        commit.recordNanoseconds(
            Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        batchSize.record(commands.count)
        commandsReceived.increment(by: commands.count)
        var asked = 0
        var answered = 0
        var synced = 0
        for command in commands {
            switch MessageType(frame: command.frame) {
            case .ask: asked += 1
            case .answer: answered += 1
            case .sync: synced += 1
            default: break
            }
        }
        if asked > 0 { asks.increment(by: asked) }
        if answered > 0 { answers.increment(by: answered) }
        if synced > 0 { syncs.increment(by: synced) }
        for reply in replies {
            if case .failure(let error) = reply.outcome { errors[error.code]?.increment() }
        }
        let now = ContinuousClock.now
        lastHeard.withLock { heard in
            for command in commands { if let device = command.deviceID { heard[device] = now } }
        }
    }

    /// Counts what a committed transaction publishes (commands, expiry sweeps, admin changes alike): events, and
    /// resolutions by reason.
    package func record(_ output: BrokerEngine.Output) {
        if !output.events.isEmpty { events.increment(by: output.events.count) }
        for event in output.events {
            // Each resolution is published once to the child (and once to each parent): count the child's copy.
            guard case .questionResolved(let asked, let resolution) = event.body, event.memberID == asked.childMemberID
            else { continue }
            if resolution.reason == .parentAnswered {
                parentAnswers.increment()
            } else {
                defaultResponses[resolution.reason]?.increment()
            }
        }
    }

    /// Counts a device cut off for a hostile message on the command socket (ingress) or the event socket (egress).
    func recordHostile(onEvents: Bool) {
        (onEvents ? hostileSubscriptions : hostileCommands).increment()
    }

    /// Whether the store can store now (each store probe).
    func storeUnavailable(_ unavailable: Bool) { storeDown.record(unavailable ? 1 : 0) }

    /// Updates the gauges; called on each heartbeat.
    func refresh(subscribedMembers: Int, newlyDropped: UInt64, checkpoints: WALCheckpointer.Counts) {
        let cutoff = ContinuousClock.now - Self.connectedWindow
        let count = lastHeard.withLock { heard in
            heard = heard.filter { $0.value >= cutoff }
            return heard.count
        }
        connected.record(count)
        subscribed.record(subscribedMembers)
        if newlyDropped > 0 { dropped.increment(by: Int(newlyDropped)) }
        let before = countedCheckpoints.withLock { counted in
            defer { counted = checkpoints }
            return counted
        }
        if checkpoints.background > before.background {
            backgroundCheckpoints.increment(by: checkpoints.background - before.background)
        }
        if checkpoints.writer > before.writer { writerCheckpoints.increment(by: checkpoints.writer - before.writer) }
    }
}
