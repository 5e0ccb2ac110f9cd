import ArgumentParser
import FamilyBroker
import Foundation

/// The engine and its SQLite store without sockets (`EngineBenchmark`): the writer's CPU time per cycle, per round and
/// as a median, repeatable enough to size changes of a few percent.
struct EngineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "The broker's engine on a real SQLite file, in process: writer CPU per ask-and-answer cycle.")

    @Option(help: "Families (one organizer and one child each).") var families = 200
    @Option(help: "Commands per batch (one transaction): half new asks, half answers to the previous batch's.")
    var batch = 256
    @Option(help: "Batches per round.") var batches = 40
    @Option(help: "Measured rounds; the median is reported.") var rounds = 7
    @Option(help: "Batches run before the first round, not measured.") var warmup = 20
    @Flag(name: .customLong("random-ids"), help: "Random question ids, as apps make them, instead of ascending ones.")
    var randomIDs = false
    @Option(help: "Where the database goes (default: a new temporary directory, removed afterwards).")
    var directory: String?
    @Option(help: "Write the rounds as JSON to this file.") var json: String?

    func validate() throws {
        guard families > 0, batch >= 2, batches > 0, rounds > 0, warmup >= 0 else {
            throw ValidationError("families, batch (at least 2), batches and rounds must be positive")
        }
    }

    func run() async throws {
        var options = EngineBenchmark.Options()
        options.families = families
        options.batch = batch
        options.randomIDs = randomIDs
        let root =
            directory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "hearth-engine-\(UUID().uuidString.prefix(8))"
            ).path
        let bench = try await EngineBenchmark(options, directory: root)
        defer { if directory == nil { bench.remove() } }
        if warmup > 0 { _ = try await bench.round(batches: warmup) }
        var results: [EngineBenchmark.Round] = []
        for index in 1...rounds {
            let round = try await bench.round(batches: batches)
            results.append(round)
            print(Self.line("round \(index)", round))
        }
        let writer = Measurement(samples: results.map { Self.micro($0.writerCPU, $0.cycles) })
        let process = Measurement(samples: results.map { Self.micro($0.processCPU, $0.cycles) })
        let wall = Measurement(samples: results.map { Self.micro($0.wall, $0.cycles) })
        print(
            String(
                format:
                    "median of %d rounds: writer CPU %.1f µs per cycle (%.1f–%.1f), process CPU %.1f µs, wall %.1f µs",
                rounds, writer.median, writer.samples.min()!, writer.samples.max()!, process.median, wall.median))
        if let json { try Self.write(results, to: json) }
    }

    private static func micro(_ duration: Duration, _ cycles: Int) -> Double {
        let (seconds, attoseconds) = duration.components
        return (Double(seconds) * 1e6 + Double(attoseconds) / 1e12) / Double(max(cycles, 1))
    }

    private static func line(_ name: String, _ round: EngineBenchmark.Round) -> String {
        name
            + String(
                format:
                    ": %d cycles in %d transactions, writer CPU %.1f µs per cycle, process CPU %.1f µs, wall %.1f µs",
                round.cycles, round.transactions, micro(round.writerCPU, round.cycles),
                micro(round.processCPU, round.cycles), micro(round.wall, round.cycles))
    }

    private static func write(_ rounds: [EngineBenchmark.Round], to path: String) throws {
        let rows = rounds.map { round in
            [
                "cycles": Double(round.cycles), "transactions": Double(round.transactions),
                "writerCPUMicrosecondsPerCycle": micro(round.writerCPU, round.cycles),
                "processCPUMicrosecondsPerCycle": micro(round.processCPU, round.cycles),
                "wallMicrosecondsPerCycle": micro(round.wall, round.cycles),
            ]
        }
        let data = try JSONSerialization.data(withJSONObject: ["rounds": rows], options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }
}
