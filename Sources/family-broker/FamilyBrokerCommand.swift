import ArgumentParser
import FamilyBroker
import Foundation
import HearthCore
import HearthService
import Logging

@main
struct FamilyBrokerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "family-broker",
        abstract: "Knows families, stores every question and answer, and routes them between devices.",
        discussion: """
            Each setting comes from, in order of precedence: its flag, its environment variable \
            (\(BrokerSettings.environmentPrefix)_ and the key in upper snake case, e.g. HEARTH_BROKER_SUBSCRIBER_HWM), \
            the config file (--config), or its default. docs/CONFIGURATION.md lists them all.

            Settings:
            \(BrokerSettings.flagHelp)
            """)

    // Every setting's flag is read from `BrokerSettings.all`, where the setting is declared: no flag is spelled here.
    // Without defaults, so that the environment and the config file still count (defaults are in BrokerSettings).
    @Argument(parsing: .allUnrecognized, help: .hidden) var settingFlags: [String] = []

    @Option(help: .hidden)  // tests only: "now" is the real time plus the seconds in this file (OffsetClock)
    var clockFile: String?

    @Option(help: .hidden)  // tests only: each commit waits the seconds in this file (a slow disk)
    var commitDelayFile: String?

    @Option(help: .hidden)  // tests only: scrypt's cost (log2 N, 10 to 20) for new passcode hashes (a slow hash)
    var passcodeCost: Int?

    func run() async throws {
        let settings: BrokerSettings
        do {
            settings = try BrokerSettings(
                try await DaemonSettings(
                    daemon: "family-broker", environmentPrefix: BrokerSettings.environmentPrefix,
                    keys: BrokerSettings.keys,
                    flags: try BrokerSettings.flags(from: settingFlags)))
        } catch let error as ConfigurationError {
            // Logging is not set up yet (the level is a setting): say it plainly on standard error.
            FileHandle.standardError.write(Data("family-broker: invalid configuration: \(error)\n".utf8))
            throw ExitCode(DaemonRunner.exitConfiguration)
        }
        DaemonLogging.bootstrap(level: settings.logLevel)
        MetricsExport.bootstrap()
        let logger = Logger(label: "family-broker")
        logger.debug("configuration", metadata: settings.sources.mapValues { "\($0)" })
        var options = settings.options
        options.commitDelayFile = commitDelayFile
        options.passcodeCost = passcodeCost.map { min(max($0, 10), 20) }
        let service = FamilyBrokerService(
            options: options, logger: logger, clock: clockFile.map { OffsetClock(path: $0).now } ?? Date.init)
        let ops = settings.metrics.map { address in
            OpsServer(
                address: address, addressFile: settings.metricsAddressFile, logger: logger, ready: { service.readiness }
            )
        }
        do {
            try await DaemonRunner.run(service, ops: ops, shutdownTimeout: settings.shutdownTimeout, logger: logger)
        } catch let error where AddressInUse.matches(error) {
            logger.critical("\(AddressInUse.message(error))")
            throw ExitCode(AddressInUse.exitStatus)
        } catch let error as ConfigurationError {
            logger.critical("invalid configuration: \(error)")
            throw ExitCode(DaemonRunner.exitConfiguration)
        }
    }
}
