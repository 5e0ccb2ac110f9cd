import HearthProtocol
import Metrics

/// A device daemon's metrics (swift-metrics; exported in Prometheus form by the daemon).
final class DeviceMetrics: Sendable {
    private let linked = Gauge(label: "hearth_device_linked")
    private let applied = Counter(label: "hearth_device_events_applied_total")
    private let syncs = Counter(label: "hearth_device_syncs_total")
    private let gaps = Counter(label: "hearth_device_gaps_total")
    private let localRequests: [String: Counter]
    private let brokerErrors: [ErrorCode: Counter]

    /// Local requests counted by kind: asks come from apps (child-device), answers from people (parent-device).
    private static let localKinds = [
        "ask", "answer", "knownHandles", "appHello", "appAck", "listPending", "ping", "other",
    ]

    init() {
        var local: [String: Counter] = [:]
        for kind in Self.localKinds {
            local[kind] = Counter(label: "hearth_device_local_requests_total", dimensions: [("type", kind)])
        }
        localRequests = local
        var errors: [ErrorCode: Counter] = [:]
        for code in ErrorCode.allCases {
            errors[code] = Counter(label: "hearth_device_broker_errors_total", dimensions: [("code", "\(code)")])
        }
        brokerErrors = errors
        linked.record(0)
    }

    func setLinked(_ isLinked: Bool) { linked.record(isLinked ? 1 : 0) }
    func eventsApplied(_ count: Int) { if count > 0 { applied.increment(by: count) } }
    func synced() { syncs.increment() }
    func gap() { gaps.increment() }
    func brokerError(_ code: ErrorCode) { brokerErrors[code]?.increment() }

    func localRequest(_ message: Message) {
        let kind =
            switch message {
            case .ask: "ask"
            case .answer: "answer"
            case .knownHandles: "knownHandles"
            case .appHello: "appHello"
            case .appAck: "appAck"
            case .listPending: "listPending"
            case .ping: "ping"
            default: "other"
            }
        localRequests[kind]?.increment()
    }
}
