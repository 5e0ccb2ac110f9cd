public import ArgumentParser
import Foundation
import HearthFleet

@main
struct FleetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-fleet",
        abstract: "Run fleets of real device daemons and a broker: scenario files, and a start-up benchmark.",
        subcommands: [Run.self, FleetBench.self])

    /// Writes a line at once (unbuffered), so CI's log shows each step as it ends.
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run scenario files (YAML: families, steps, expectations); exit 0 if every one passes, 1 if not.",
            discussion: "The format is in docs/FLEET.md; examples are in config/scenarios/.")

        @Argument(help: "Scenario files.") var files: [String]

        @Option(help: "processes or inProcess (default: the scenario's own mode, else processes).")
        var mode: Fleet.Mode?

        func run() async throws {
            var failed: [String] = []
            for (index, file) in files.enumerated() {
                if index > 0 { FleetCommand.emit("") }
                let scenario: Scenario
                do {
                    scenario = try Scenario.load(path: file)
                } catch {
                    FleetCommand.emit("✘ \(error)")
                    failed.append(file)
                    continue
                }
                FleetCommand.emit("\(file)")
                let report = await ScenarioRunner(scenario, mode: mode) { line in FleetCommand.emit(line) }.run()
                if !report.passed { failed.append(file) }
            }
            if files.count > 1 {
                FleetCommand.emit(
                    "\n\(files.count - failed.count) of \(files.count) scenarios passed"
                        + (failed.isEmpty ? "" : "; failed: \(failed.joined(separator: ", "))"))
            }
            if !failed.isEmpty { throw ExitCode(1) }
        }
    }
}

extension Fleet.Mode: ExpressibleByArgument {}
