import ArgumentParser
import BrokerSQLite
import FamilyBroker
import FamilyFileYAML
import Foundation
import HearthCore
import HearthFleet
import HearthProtocol
import HearthService
import HearthTransport
import ZeroMQ

/// Fills a broker database with a large history, then times family-broker from launch to ready and reads its memory.
struct StartupBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "startup", abstract: "Broker start-up time and resident memory over a large stored history.")

    @Option(help: "Families in the history (one organizer and one child each).") var families = 10_000
    @Option(help: "Answered questions per child.") var questions = 10
    @Option(help: "Start-ups to time; the median is reported.") var runs = 3
    @Option(help: "Working directory (default: a new temporary one, removed afterwards).") var directory: String?

    func run() async throws {
        let root =
            directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "hearth-startup-\(UUID().uuidString.prefix(8))"
            ).path
        try FileManager.default.createDirectory(atPath: root + "/broker", withIntermediateDirectories: true)
        defer { if directory == nil { try? FileManager.default.removeItem(atPath: root) } }
        var file = FamilyFile(families: [])
        for f in 0..<families {
            file.families.append(
                .init(
                    id: "f\(f)",
                    members: [
                        .init(
                            id: "p\(f)", role: "organizer",
                            devices: [.init(id: "pd\(f)", publicKey: try CurveKeyPair.generate().publicKey)]),
                        .init(
                            id: "c\(f)", role: "child",
                            devices: [.init(id: "cd\(f)", publicKey: try CurveKeyPair.generate().publicKey)]),
                    ]))
        }
        try file.yaml().write(toFile: root + "/families.yaml", atomically: true, encoding: .utf8)
        let fill = ContinuousClock.now
        let events = try await BrokerStore(path: root + "/broker/broker.sqlite").appendHistory(
            families: families, questionsPerChild: questions)
        print("history: \(families) families, \(events) events, written in \(ContinuousClock.now - fill)")
        let size =
            (try? FileManager.default.attributesOfItem(atPath: root + "/broker/broker.sqlite")[.size] as? Int) ?? 0
        print("database: \(size / 1_048_576) MiB")

        let bin = try BinaryLocator.directory()
        var times = Measurement()
        var rss: [Int] = []
        for _ in 0..<runs {
            try? FileManager.default.removeItem(atPath: root + "/broker/broker.ready.json")
            let start = ContinuousClock.now
            let process = try SpawnedProcess.launch(
                bin + "/family-broker",
                arguments: [
                    "--state", root + "/broker", "--families", root + "/families.yaml", "--ingress",
                    "tcp://127.0.0.1:0", "--egress", "tcp://127.0.0.1:0", "--log-level", "error",
                ])
            while !FileManager.default.fileExists(atPath: root + "/broker/broker.ready.json") {
                guard process.isRunning else { throw ValidationError("family-broker exited during start-up") }
                try await Task.sleep(for: .milliseconds(2))
            }
            let elapsed = ContinuousClock.now - start
            times.samples.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            rss.append(Self.residentKiB(process.pid))
            kill(process.pid, SIGTERM)
            _ = await process.waitUntilExit()
        }
        print(
            String(
                format: "start-up to ready: median %.3f s over %d runs; resident memory after start-up: median %d MiB",
                times.median, runs, rss.sorted()[rss.count / 2] / 1024))
    }

    static func residentKiB(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
    }
}
