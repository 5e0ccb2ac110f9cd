import Foundation
import HearthFleet
import HearthLoad

/// `cycle --brokers N --store postgres`: the same load against N brokers on one PostgreSQL server, each simulated
/// device connected to the owner of its family (read from the cluster's lease table), reported per broker and in
/// total.
extension CycleCommand {
    func runOnCluster(
        shape: LoadShape, plan: LoadPlan, progress: (@Sendable (String) -> Void)?
    ) async throws -> ClusterCycleReport {
        progress?("launching \(brokers) family-broker on one PostgreSQL server for \(families) families")
        let cluster = try await LaunchedCluster.start(
            shape, brokers: brokers, partitions: partitions, arguments: brokerArguments, progress: progress)
        do {
            let assignments = try await cluster.assignments(shape)
            let databasePID = cluster.databasePID
            let reports = try await withThrowingTaskGroup(of: (String, CycleReport).self) { group in
                for (broker, target, owned) in assignments {
                    let share = Double(owned.count) / Double(shape.families)
                    let mode: LoadPlan.Mode =
                        switch plan.mode {
                        case .open(let rate): .open(cyclesPerSecond: rate * share)
                        case .closed(let n): .closed(inFlight: max(1, Int((Double(n) * share).rounded())))
                        case .connectOnly: .connectOnly
                        }
                    var brokerPlan = plan
                    brokerPlan.mode = mode
                    let name = broker.name
                    var run = CycleRun(
                        shape: shape, plan: brokerPlan, shards: 1, target: target, families: owned,
                        progress: progress.map { print in { @Sendable line in print("[\(name)] " + line) } })
                    run.databasePID = databasePID
                    group.addTask { (name, try await run.run()) }
                }
                var reports: [String: CycleReport] = [:]
                for try await (name, report) in group { reports[name] = report }
                return reports
            }
            await cluster.stop()
            return ClusterCycleReport(brokers: reports)
        } catch {
            await cluster.stop()
            throw error
        }
    }
}

/// Per broker and in total: throughput and losses add up; the latency is each broker's, the worst p99 the total's.
struct ClusterCycleReport: Codable {
    var brokers: [String: CycleReport]

    var cyclesPerSecond: Double { brokers.values.map(\.cyclesPerSecond).reduce(0, +) }
    var lost: Int { brokers.values.map(\.lost).reduce(0, +) }
    var duplicated: Int { brokers.values.map(\.duplicated).reduce(0, +) }
    var errors: Int { brokers.values.map(\.errors).reduce(0, +) }

    var text: String {
        func f(_ value: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", value) }
        var lines = ["cluster of \(brokers.count) brokers on one PostgreSQL server:"]
        for (name, report) in brokers.sorted(by: { $0.key < $1.key }) {
            let latency = report.latencyMicroseconds
            lines.append(
                "  \(name): \(report.families) families, \(f(report.cyclesPerSecond)) cycles/s, "
                    + "p50 \(f(Double(latency.p50) / 1000, 2)) ms, p99 \(f(Double(latency.p99) / 1000, 2)) ms, "
                    + "lost \(report.lost), duplicated \(report.duplicated), errors \(report.errors), "
                    + "broker CPU \(report.server.cpuPercent.map { f($0) + "%" } ?? "?")")
        }
        let worst = brokers.values.map(\.latencyMicroseconds.p99).max() ?? 0
        let database = brokers.values.compactMap { $0.database?.cpuPercent }.first
        lines.append(
            "  total: \(f(cyclesPerSecond)) cycles/s, worst p99 \(f(Double(worst) / 1000, 2)) ms, lost \(lost), "
                + "duplicated \(duplicated), errors \(errors), PostgreSQL CPU \(database.map { f($0) + "%" } ?? "?")")
        return lines.joined(separator: "\n")
    }
}
