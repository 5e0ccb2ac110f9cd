import ArgumentParser
import BrokerSQLite
import FamilyBroker
import Foundation
import HearthLoad
import HearthService
import HearthTransport

/// Many devices connected to one broker that stores many families: connections held and the broker's memory.
struct ConnectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connect",
        abstract: "Devices connected at once to one broker storing many families; the broker's resident memory.",
        discussion: """
            Enrols --families families (an organizer and a child each, every device with its own key), stores \
            --questions answered questions per child as history, launches the broker, then connects --devices \
            devices (DEALER + SUB each, CURVE, hello, subscription granted) from --workers processes, since each \
            process has its own descriptor limit.
            """)

    @Option(help: "Families enrolled and stored.") var families = 100_000
    @Option(help: "Answered questions stored per child (5 events each).") var questions = 5
    @Option(help: "Devices to connect (the first families' organizer and child devices).") var devices = 10_000
    @Option(help: "Generator processes.") var workers = 4
    @Option(help: "Seconds to hold the connections before reading memory again.") var hold: Double = 5
    @Option(help: "Write the JSON report here.") var json: String?
    @Option(help: "Seconds each worker waits for all its devices to be welcomed and subscribed.") var timeout: Double =
        300
    @Option(name: .customLong("broker-arg"), help: "An extra family-broker argument (repeat for more).")
    var brokerArguments: [String] = []

    func run() async throws {
        FileLimits.raise()
        let shape = LoadShape(families: families)
        let questions = self.questions
        let families = self.families
        let prepareStart = ContinuousClock.now
        print(
            "enrolling \(families) families (\(families * 2) device keys) and storing \(questions) answered questions per child"
        )
        let server = try await LaunchedServer.broker(shape, arguments: ["--heartbeat", "2"] + brokerArguments) {
            state in
            _ = try await BrokerStore(path: state + "/broker.sqlite").appendHistory(
                families: families, questionsPerChild: questions)
        }
        print("broker ready after \(ContinuousClock.now - prepareStart) (enrolment, history and start-up)")
        let idle = ProcessSample.read(server.target.pid)
        var report = ConnectReport(
            families: families, storedEvents: families * questions * 5, devicesRequested: devices)
        report.idleResidentMiB = idle.map { Double($0.residentKiB) / 1024 }
        do {
            try await connectWorkers(server, &report)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        print(report.text)
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
        }
    }

    private func connectWorkers(_ server: LaunchedServer, _ report: inout ConnectReport) async throws {
        let familiesNeeded = (devices + 1) / 2
        let executable = try CycleCommand.executable()
        let start = ContinuousClock.now
        // A directory of the workers' outputs and the file whose creation ends their hold.
        let talk = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-connect-\(UUID())").path
        try FileManager.default.createDirectory(atPath: talk, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: talk) }
        var launched: [(process: SpawnedProcess, output: String)] = []
        var first = 0
        for w in 0..<workers {
            let n = familiesNeeded / workers + (w < familiesNeeded % workers ? 1 : 0)
            let output = talk + "/worker-\(w).out"
            let process = try SpawnedProcess.launch(
                executable,
                arguments: [
                    "connect-worker", "--ready", server.target.readyFile ?? "", "--keys", server.keysDirectory,
                    "--from", "\(first)", "--count", "\(n)", "--timeout", "\(timeout)", "--stop-file", talk + "/stop",
                ], output: output, append: false, keepError: true)
            launched.append((process, output))
            first += n
        }
        var connected = 0
        for worker in launched {
            let line = try await Self.firstLine(of: worker.output, from: worker.process)
            guard let count = Int(line.split(separator: " ").last ?? "") else {
                for other in launched { kill(other.process.pid, SIGKILL) }
                throw LoadError(
                    "a connect worker failed (exit \(worker.process.status.map { "\($0)" } ?? "-")): \(line)")
            }
            connected += count
        }
        report.devicesConnected = connected
        report.connectSeconds = seconds(ContinuousClock.now - start)
        let loaded = ProcessSample.read(server.target.pid)
        report.connectedResidentMiB = loaded.map { Double($0.residentKiB) / 1024 }
        report.brokerDescriptors =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.target.pid)/fd").count) ?? 0
        print("\(connected) devices connected in \(report.connectSeconds) s; holding \(hold) s")
        try await Task.sleep(for: .milliseconds(Int(hold * 1000)))
        let held = ProcessSample.read(server.target.pid)
        report.heldResidentMiB = held.map { Double($0.residentKiB) / 1024 }
        report.peakResidentMiB = held.map { Double($0.peakResidentKiB) / 1024 }
        report.heldCPUPercent = ProcessSample.cpuPercent(from: loaded, to: held)
        // Without the stop file the workers would hold until their timeout: end them, and fail the run.
        guard FileManager.default.createFile(atPath: talk + "/stop", contents: nil) else {
            for worker in launched { kill(worker.process.pid, SIGKILL) }
            throw LoadError("could not create \(talk)/stop, which ends the connect workers' hold")
        }
        for worker in launched { _ = await worker.process.waitUntilExit() }
    }

    /// The first line a worker writes to `path`, once it is complete or the worker exited.
    private static func firstLine(of path: String, from process: SpawnedProcess) async throws -> String {
        while true {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if let end = text.firstIndex(of: "\n") { return String(text[..<end]) }
            if !process.isRunning { return text }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}

/// One generator process of `connect`: connects its devices, prints `connected N`, holds until `--stop-file` exists.
struct ConnectWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "connect-worker", shouldDisplay: false)

    @Option var ready: String
    @Option var keys: String
    @Option var from: Int
    @Option var count: Int
    @Option var shards = 4
    @Option var timeout: Double = 300
    @Option var stopFile: String

    func run() async throws {
        FileLimits.raise()
        let target = try LoadTarget.fromReadyFile(ready, kind: .broker)
        let families = try SimulatedFamily.make(LoadShape(families: from + count), families: from..<(from + count)) {
            device in
            try KeyFiles.loadPair(secretPath: keys + "/" + device + ".key")
        }
        do {
            let start = ContinuousClock.now
            let from = self.from
            let devices = families.count * 2
            let swarm = try await DeviceSwarm.connect(
                target: target, families: families, shards: shards, timeout: .milliseconds(Int(timeout * 1000))
            ) { welcomed, subscribed in
                // On stderr, which the coordinator passes through: how connecting progresses, worker by worker.
                let elapsed = (ContinuousClock.now - start).components.seconds
                FileHandle.standardError.write(
                    Data(
                        "worker \(from): \(elapsed) s: \(welcomed) welcomed, \(subscribed) subscribed of \(devices)\n"
                            .utf8))
            }
            Self.say("connected \(families.count * 2)")
            // Hold until the coordinator creates the stop file.
            while !FileManager.default.fileExists(atPath: stopFile) { try await Task.sleep(for: .milliseconds(100)) }
            _ = await swarm.disconnect()
        } catch {
            Self.say("failed: \(error)")
            throw ExitCode(1)
        }
    }
}

extension ConnectWorkerCommand {
    /// One line to the coordinator, at once (stdout is a file, so it would otherwise be buffered).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// The figures of a `connect` run.
struct ConnectReport: Codable {
    var families: Int
    var storedEvents: Int
    var devicesRequested: Int
    var devicesConnected = 0
    var connectSeconds = 0.0
    var brokerDescriptors = 0
    var idleResidentMiB: Double?
    var connectedResidentMiB: Double?
    var heldResidentMiB: Double?
    var peakResidentMiB: Double?
    var heldCPUPercent: Double?

    init(families: Int, storedEvents: Int, devicesRequested: Int) {
        self.families = families
        self.storedEvents = storedEvents
        self.devicesRequested = devicesRequested
    }

    var text: String {
        func mib(_ v: Double?) -> String { v.map { String(format: "%.0f MiB", $0) } ?? "?" }
        return """
            connect: \(families) families stored (\(storedEvents) events); \(devicesConnected) of \(devicesRequested) devices connected \
            (DEALER + SUB each, CURVE, welcomed, subscribed) in \(String(format: "%.1f", connectSeconds)) s; broker descriptors \(brokerDescriptors)
              broker RSS: before connections \(mib(idleResidentMiB)), connected \(mib(connectedResidentMiB)), after holding \(mib(heldResidentMiB)), peak \(mib(peakResidentMiB)); CPU while holding \(heldCPUPercent.map { String(format: "%.0f%%", $0) } ?? "?")
            """
    }
}
