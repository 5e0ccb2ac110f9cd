import ArgumentParser

@main
struct HearthLoadtest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-loadtest",
        abstract: "Measure Hearth: the wire codec, and broker start-up over a large stored history.",
        subcommands: [CodecBenchmark.self, StartupBenchmark.self])
}
