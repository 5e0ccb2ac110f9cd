import ArgumentParser
import Foundation
import HearthFleet
import HearthLoad
import HearthTransport

/// ask → approve → response cycles against a broker, and optionally against the raw relay in the same run.
struct CycleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cycle",
        abstract:
            "Simulated families against a broker: whole-cycle latency (HdrHistogram), throughput, lost/duplicated checks.",
        discussion: """
            Each device is a CURVE DEALER + SUB with its own key. A child asks, the parent receives the question, \
            approves after the think time, and the cycle ends when the child receives the response. Open loop \
            (--rate) measures latency from each ask's intended send time; closed loop (--closed --in-flight N) finds \
            the most the broker sustains.
            """)

    @Option(help: "Families to simulate.") var families = 100
    @Option(help: "Children per family (one device each).") var children = 1
    @Option(help: "Parents per family (one device each); one of them answers each question.") var parents = 1
    @Option(help: "Open loop: cycles per second offered.") var rate: Double = 1000
    @Flag(help: "Closed loop: keep --in-flight cycles outstanding instead of a fixed rate.") var closed = false
    @Option(help: "Closed loop: cycles outstanding at once.") var inFlight = 64
    @Option(help: "Seconds measured.") var duration: Double = 10
    @Option(help: "Seconds of load before measuring.") var warmup: Double = 2
    @Option(help: "Milliseconds a parent waits before approving (excluded from the latency).") var thinkTime: Double = 0
    @Option(help: "Seconds to wait after the window for cycles in flight before counting them lost.") var drain:
        Double = 10
    @Option(help: "Generator threads (each with its own libzmq context).") var shards = 2
    @Flag(
        name: .customLong("random-ids"),
        help: "Question ids spread over the id space as apps' random UUIDs are (default: ascending per run).")
    var randomIDs = false
    @Option(help: "`launch` to start a broker with durable settings, or the path of a running broker's ready file.")
    var broker = "launch"
    @Option(help: "With a running broker: the directory holding each device's <device>.key (see `families`).") var keys:
        String?
    @Option(name: .customLong("broker-arg"), help: "An extra family-broker argument when launching (repeat for more).")
    var brokerArguments: [String] = []
    @Option(
        help: """
            sqlite; or postgres to also run the same load against a launched broker on a PostgreSQL server of its own, \
            after the SQLite broker (the report has both, with the server's CPU).
            """)
    var store = "sqlite"
    @Option(
        help: """
            With --store postgres: run N brokers on the one PostgreSQL server instead of one, each simulated device \
            connected to the owner of its family (from the lease table); reported per broker and in total.
            """)
    var brokers = 1
    @Option(help: "With --brokers: the brokers' partition count.") var partitions = 64
    @Flag(help: "Also run the same load against the raw libzmq relay, for the ratio to the transport's ceiling.")
    var baseline = false
    @Flag(inversion: .prefixedNo, help: "CURVE on the relay's sockets, as on the broker's.") var baselineCurve = true
    @Option(help: "Write the JSON report here (with each run's full latency histogram).") var json: String?
    @Option(
        help: """
            Write an HTML page (index.html, self-contained) into this directory: verdicts against the targets, the \
            latency distributions, throughput and CPU per second.
            """)
    var report: String?
    @Flag(help: "No progress lines.") var quiet = false

    func run() async throws {
        FileLimits.raise()
        let shape = LoadShape(families: families, children: children, parents: parents)
        let mode: LoadPlan.Mode = closed ? .closed(inFlight: inFlight) : .open(cyclesPerSecond: rate)
        let plan = LoadPlan(
            mode: mode, warmup: .milliseconds(Int(warmup * 1000)), duration: .milliseconds(Int(duration * 1000)),
            thinkTime: .microseconds(Int(thinkTime * 1000)), drainTimeout: .milliseconds(Int(drain * 1000)),
            randomIDs: randomIDs)
        let progress: (@Sendable (String) -> Void)? = quiet ? nil : { @Sendable (line: String) in print(line) }

        let server: LaunchedServer?
        let target: LoadTarget
        let simulated: [SimulatedFamily]
        if broker == "launch" {
            progress?("launching family-broker for \(families) families")
            let launched = try await LaunchedServer.broker(shape, arguments: brokerArguments)
            server = launched
            target = launched.target
            simulated = try launched.families(shape)
        } else {
            guard let keys else { throw ValidationError("--keys DIR is needed with a running broker") }
            server = nil
            target = try LoadTarget.fromReadyFile(broker, kind: .broker)
            simulated = try SimulatedFamily.make(shape, families: 0..<families) { device in
                try KeyFiles.loadPair(secretPath: keys + "/" + device + ".key")
            }
        }
        var reports = CycleReports()
        reports.machine = .atStart()
        for warning in reports.machine?.warnings ?? [] { print(warning) }
        do {
            reports.broker = try await CycleRun(
                shape: shape, plan: plan, shards: shards, target: target, families: simulated, progress: progress
            ).run()
            print(reports.broker!.text)
        } catch {
            await server?.stop()
            throw error
        }
        await server?.stop()
        if store == "postgres", brokers > 1 {
            let cluster = try await runOnCluster(shape: shape, plan: plan, progress: progress)
            print(cluster.text)
            reports.cluster = cluster
        } else if store == "postgres" {
            reports.brokerPostgres = try await runOnPostgres(shape: shape, plan: plan, progress: progress)
            print(reports.brokerPostgres!.text)
        }

        if baseline {
            progress?("launching the raw libzmq relay (CURVE \(baselineCurve ? "on" : "off"))")
            let keysDirectory = server?.keysDirectory ?? keys ?? ""
            let relay = try await LaunchedServer.relay(
                executable: try Self.executable(), curve: baselineCurve, keysDirectory: keysDirectory)
            do {
                reports.baseline = try await CycleRun(
                    shape: shape, plan: plan, shards: shards, target: relay.target, families: simulated,
                    progress: progress
                ).run()
            } catch {
                await relay.stop()
                throw error
            }
            await relay.stop()
            print(reports.baseline!.text)
            if let comparison = reports.relayComparison { print(comparison.text) }
        }
        try write(&reports)
        let runs =
            [reports.broker, reports.brokerPostgres].compactMap { $0 }
            + (reports.cluster.map { Array($0.brokers.values) } ?? [])
        for run in runs where run.lost > 0 || run.duplicated > 0 {
            throw ExitCode(2)
        }
    }

    func validate() throws {
        guard store == "sqlite" || store == "postgres" else { throw ValidationError("--store is sqlite or postgres") }
        guard store == "sqlite" || broker == "launch" else {
            throw ValidationError("--store postgres launches its broker")
        }
        guard brokers == 1 || store == "postgres" else { throw ValidationError("--brokers needs --store postgres") }
        guard (1...16).contains(brokers) else { throw ValidationError("--brokers is from 1 to 16") }
    }

    /// The verdicts, the end's load average, and the JSON report and the page where asked.
    func write(_ reports: inout CycleReports) throws {
        reports.machine?.loadAverageAtEnd = MachineState.loadAverage()
        for verdict in reports.verdicts { print(verdict.text) }
        for warning in reports.machine?.warnings ?? [] { print(warning) }
        if let json {
            // Not pretty-printed: each histogram is some 18,000 counts, a line each when pretty.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(reports).write(to: URL(fileURLWithPath: json))
        }
        if let report {
            let command = (["hearth-loadtest"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
            print("report: " + (try ReportPage.write(ReportPage.cycle(reports, command: command), to: report)))
        }
    }

    /// The same load against a broker launched on a throwaway PostgreSQL server, with the server's CPU sampled.
    func runOnPostgres(
        shape: LoadShape, plan: LoadPlan, progress: (@Sendable (String) -> Void)?
    ) async throws -> CycleReport {
        progress?("launching family-broker on PostgreSQL for \(families) families")
        let launched = try await LaunchedServer.broker(shape, arguments: brokerArguments, store: .postgres)
        do {
            var run = CycleRun(
                shape: shape, plan: plan, shards: shards, target: launched.target,
                families: try launched.families(shape), progress: progress)
            run.databasePID = launched.databasePID
            let report = try await run.run()
            await launched.stop()
            return report
        } catch {
            await launched.stop()
            throw error
        }
    }

    /// This very executable, to run the relay as a process of its own.
    static func executable() throws -> String {
        guard let path = Bundle.main.executableURL?.resolvingSymlinksInPath().path else {
            throw ValidationError("cannot find the hearth-loadtest executable")
        }
        return path
    }
}
