import Foundation
import HearthCore
import HearthProtocol
import PermissionKit

/// Runs a `Scenario` against a fleet: launches it, performs each step in order, stops at the first failure, and
/// always tears the fleet down. Each report line is handed to `output` as soon as its step ends.
public struct ScenarioRunner: Sendable {
    public var scenario: Scenario
    public var mode: Fleet.Mode
    public var output: @Sendable (String) -> Void

    /// `mode` overrides the scenario's own.
    public init(_ scenario: Scenario, mode: Fleet.Mode? = nil, output: @escaping @Sendable (String) -> Void = { _ in })
    {
        self.scenario = scenario
        self.mode = mode ?? scenario.mode ?? .processes
        self.output = output
    }

    public func run() async -> ScenarioReport {
        let started = ContinuousClock.now
        let deviceCount = (try? scenario.roles().count) ?? 0
        let familyCount = scenario.families.count
        let header =
            "Scenario \"\(scenario.name)\" (\(mode.rawValue)): \(familyCount) famil\(familyCount == 1 ? "y" : "ies"), \(deviceCount) device\(deviceCount == 1 ? "" : "s")"
        output(header)
        var lines: [ScenarioReport.Line] = []
        func record(_ line: ScenarioReport.Line) {
            lines.append(line)
            output(line.text)
        }
        let launchStart = ContinuousClock.now
        let fleet: Fleet
        do {
            fleet = try await Fleet.launch(try scenario.fleetSpec(), mode: mode)
        } catch {
            record(
                .init(
                    number: 0, summary: "start the fleet", outcome: .failed("\(error)"),
                    elapsed: ContinuousClock.now - launchStart))
            for (index, step) in scenario.steps.enumerated() {
                record(.init(number: index + 1, summary: step.summary, outcome: .notRun, elapsed: .zero))
            }
            return finish(header: header, lines: lines, started: started)
        }
        record(
            .init(number: 0, summary: "start the fleet", outcome: .passed, elapsed: ContinuousClock.now - launchStart))
        let context = ScenarioContext(
            fleet: fleet, timeout: (scenario.timeout ?? ScenarioDuration(seconds: 10)).duration)
        var failed = false
        for (index, step) in scenario.steps.enumerated() {
            guard !failed else {
                record(.init(number: index + 1, summary: step.summary, outcome: .notRun, elapsed: .zero))
                continue
            }
            let stepStart = ContinuousClock.now
            do {
                try await context.perform(step)
                record(
                    .init(
                        number: index + 1, summary: step.summary, outcome: .passed,
                        elapsed: ContinuousClock.now - stepStart))
            } catch {
                failed = true
                // A fleet error carries the logs already; anything else gets them here.
                let why = error is FleetError ? "\(error)" : "\(error)\n\(fleet.logs())"
                record(
                    .init(
                        number: index + 1, summary: step.summary, outcome: .failed(why),
                        elapsed: ContinuousClock.now - stepStart))
            }
        }
        await context.close()
        await fleet.shutdown()
        return finish(header: header, lines: lines, started: started)
    }

    private func finish(
        header: String, lines: [ScenarioReport.Line], started: ContinuousClock.Instant
    ) -> ScenarioReport {
        let report = ScenarioReport(
            name: scenario.name, header: header, lines: lines, elapsed: ContinuousClock.now - started)
        output(report.verdict)
        return report
    }
}
