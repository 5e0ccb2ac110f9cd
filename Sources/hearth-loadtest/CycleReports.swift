import Foundation
import HearthLoad

/// The JSON report: the broker's figures, the relay's in the same run, the machine they ran on, and how the broker
/// compares with the relay.
struct CycleReports: Codable {
    var broker: CycleReport?
    /// The same load against a broker on PostgreSQL (`--store postgres`).
    var brokerPostgres: CycleReport?
    var baseline: CycleReport?
    /// `--brokers N --store postgres`: the run against the cluster, per broker.
    var cluster: ClusterCycleReport?
    /// The build and the machine's load around the run (nil in reports from before it was kept).
    var machine: MachineState?

    /// The broker's throughput over the relay's. Meaningful only at saturation (closed loop, or an open rate above
    /// what the broker completes): below it both complete the offered rate, and `relayComparison` compares latency.
    var brokerToBaseline: Double? {
        guard let broker, let baseline, baseline.cyclesPerSecond > 0 else { return nil }
        return broker.cyclesPerSecond / baseline.cyclesPerSecond
    }

    /// How the broker compares with the relay in this run, in the measure that means something for its load.
    var relayComparison: RelayComparison? {
        guard let broker, let baseline else { return nil }
        return RelayComparison(broker: broker, relay: baseline)
    }

    /// Each target of docs/PERFORMANCE.md judged against this run.
    var verdicts: [TargetVerdict] { TargetVerdict.all(for: self) }

    enum CodingKeys: String, CodingKey {
        case broker, brokerPostgres, baseline, brokerToBaseline, cluster, machine, relayComparison, verdicts
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        broker = try c.decodeIfPresent(CycleReport.self, forKey: .broker)
        brokerPostgres = try c.decodeIfPresent(CycleReport.self, forKey: .brokerPostgres)
        baseline = try c.decodeIfPresent(CycleReport.self, forKey: .baseline)
        cluster = try c.decodeIfPresent(ClusterCycleReport.self, forKey: .cluster)
        machine = try c.decodeIfPresent(MachineState.self, forKey: .machine)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(broker, forKey: .broker)
        try c.encodeIfPresent(brokerPostgres, forKey: .brokerPostgres)
        try c.encodeIfPresent(baseline, forKey: .baseline)
        try c.encodeIfPresent(brokerToBaseline, forKey: .brokerToBaseline)
        try c.encodeIfPresent(cluster, forKey: .cluster)
        try c.encodeIfPresent(machine, forKey: .machine)
        try c.encodeIfPresent(relayComparison, forKey: .relayComparison)
        try c.encode(verdicts, forKey: .verdicts)
    }

    /// Reads a report written by `cycle --json`.
    static func read(_ path: String) throws -> CycleReports {
        try JSONDecoder().decode(CycleReports.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
