import ArgumentParser

@main
struct HearthLoadtest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth-loadtest",
        abstract:
            "Load-test and measure Hearth: broker cycles, the raw libzmq baseline, the binding, the codec, start-up.",
        subcommands: [
            CycleCommand.self, ConnectCommand.self, PubSubCommand.self, CodecBenchmark.self, StartupBenchmark.self,
            RelayCommand.self, ConnectWorkerCommand.self, ChaosCommand.self, EngineCommand.self, CompareCommand.self,
        ])
}
