import ArgumentParser
import Foundation
import HearthLoad

/// The Swift binding against libzmq's C API, PUB→SUB.
struct PubSubCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pubsub",
        abstract: "PUB→SUB messages/s through the Swift binding vs libzmq's C API, in the same run.")

    @Option(help: "Messages per run.") var messages = 2_000_000
    @Option(help: "Message size in bytes.") var size = 100
    @Option(help: "Runs per variant (alternating); medians are reported.") var runs = 5
    @Option(help: "Write the JSON report here.") var json: String?

    func run() throws {
        var rates: [PubSubBenchmark.Variant: [Double]] = [:]
        for run in 0..<runs {
            for variant in run % 2 == 0 ? [.raw, .binding] : [.binding, .raw] as [PubSubBenchmark.Variant] {
                let rate = try PubSubBenchmark.run(variant, messages: messages, size: size)
                rates[variant, default: []].append(rate)
                print(
                    "run \(run + 1) \(variant.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))"
                        + String(format: "%10.0f msg/s", rate))
            }
        }
        func median(_ values: [Double]) -> Double {
            let s = values.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        let raw = median(rates[.raw] ?? [])
        let binding = median(rates[.binding] ?? [])
        print(
            String(
                format:
                    "PUB→SUB, %d B, %d messages × %d runs, medians: raw libzmq %.0f msg/s, Swift binding %.0f msg/s, binding/raw %.3f",
                size, messages, runs, raw, binding, binding / raw))
        if let json {
            let report: [String: Double] = [
                "rawMessagesPerSecond": raw, "bindingMessagesPerSecond": binding, "bindingToRaw": binding / raw,
                "size": Double(size),
            ]
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
        }
    }
}
