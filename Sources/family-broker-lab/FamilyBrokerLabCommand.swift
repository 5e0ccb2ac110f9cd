import ArgumentParser
import FamilyBroker
import Foundation
import HearthLab

/// The broker the test kit runs (HearthFleet, the integration tests, hearth-loadtest's fleets): the shipped
/// `family-broker`'s library and settings, plus the hooks a test injects. Not installed or packaged anywhere.
@main
struct FamilyBrokerLabCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "family-broker-lab",
        abstract: "family-broker with the test kit's hooks (a moved clock, a slow disk, a slow hash); tests only.",
        discussion: BrokerArguments.discussion)

    @Option(help: "\"Now\" is the real time plus the seconds in this file (OffsetClock), re-read when it changes.")
    var clockFile: String?

    @Option(help: "Each SQLite commit waits the seconds in this file first (a slow disk).")
    var commitDelayFile: String?

    @Option(help: "scrypt's cost (log2 N, 10 to 20) for new passcode hashes (a slow hash).")
    var passcodeCost: Int?

    @OptionGroup var broker: BrokerArguments

    func run() async throws {
        LabProcessName.set()
        let delayFile = commitDelayFile.map(OffsetClock.init(path:))
        let cost = passcodeCost.map { min(max($0, 10), 20) }
        try await broker.run(
            configure: { options in
                if let delayFile { options.commitDelay = { .milliseconds(Int64(delayFile.offset * 1000)) } }
                options.passcodeCost = cost
            },
            clock: clockFile.map { OffsetClock(path: $0).now } ?? Date.init)
    }
}
