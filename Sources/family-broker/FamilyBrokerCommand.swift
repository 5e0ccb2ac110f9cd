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
            """)

    // Optional without defaults: a default here would hide the environment and the config file (defaults are in
    // BrokerSettings). Names match BrokerSettings' keys: --keys-dir sets keysDir.
    @Option(help: ArgumentHelp(DaemonSettings.configKey.help, valueName: "file")) var config: String?
    @Option(help: ArgumentHelp(BrokerSettings.ingress.help, valueName: "endpoint")) var ingress: String?
    @Option(help: ArgumentHelp(BrokerSettings.egress.help, valueName: "endpoint")) var egress: String?
    @Option(help: ArgumentHelp(BrokerSettings.state.help, valueName: "dir")) var state: String?
    @Option(help: ArgumentHelp(BrokerSettings.families.help, valueName: "file")) var families: String?
    @Option(help: ArgumentHelp(BrokerSettings.keysDir.help, valueName: "dir")) var keysDir: String?
    @Option(help: ArgumentHelp(BrokerSettings.keyFile.help, valueName: "file")) var keyFile: String?
    @Option(help: ArgumentHelp(BrokerSettings.heartbeat.help, valueName: "seconds")) var heartbeat: String?
    @Option(name: .customLong("subscriber-hwm"), help: ArgumentHelp(BrokerSettings.subscriberHwm.help, valueName: "count"))
    var subscriberHwm: String?
    @Option(help: ArgumentHelp(BrokerSettings.regions.help, valueName: "file")) var regions: String?
    @Option(help: ArgumentHelp(BrokerSettings.childDefaults.help, valueName: "file")) var childDefaults: String?
    @Option(help: ArgumentHelp(BrokerSettings.maxFamilyMembers.help, valueName: "count")) var maxFamilyMembers: String?
    @Option(help: ArgumentHelp(BrokerSettings.askLimit.help, valueName: "count/seconds")) var askLimit: String?
    @Option(help: ArgumentHelp(BrokerSettings.deviceRate.help, valueName: "per-second")) var deviceRate: String?
    @Option(help: ArgumentHelp(BrokerSettings.agePromptTimeout.help, valueName: "seconds")) var agePromptTimeout: String?
    @Option(help: ArgumentHelp(BrokerSettings.logLevel.help, valueName: "level")) var logLevel: String?
    @Option(help: ArgumentHelp(BrokerSettings.metrics.help, valueName: "host:port")) var metrics: String?
    @Option(help: ArgumentHelp(BrokerSettings.shutdownTimeout.help, valueName: "seconds")) var shutdownTimeout: String?

    @Option(help: .hidden)  // tests only: "now" is the real time plus the seconds in this file (OffsetClock)
    var clockFile: String?

    func run() async throws {
        let settings: BrokerSettings
        do {
            settings = try BrokerSettings(try await DaemonSettings(
                daemon: "family-broker", environmentPrefix: BrokerSettings.environmentPrefix, keys: BrokerSettings.keys,
                flags: [
                    "config": config, "ingress": ingress, "egress": egress, "state": state, "families": families,
                    "keysDir": keysDir, "keyFile": keyFile, "heartbeat": heartbeat, "subscriberHwm": subscriberHwm,
                    "regions": regions, "childDefaults": childDefaults, "maxFamilyMembers": maxFamilyMembers, "askLimit": askLimit,
                    "deviceRate": deviceRate, "agePromptTimeout": agePromptTimeout, "logLevel": logLevel, "metrics": metrics, "shutdownTimeout": shutdownTimeout,
                ]))
        } catch let error as ConfigurationError {
            // Logging is not set up yet (the level is a setting): say it plainly on standard error.
            FileHandle.standardError.write(Data("family-broker: invalid configuration: \(error)\n".utf8))
            throw ExitCode(DaemonRunner.exitConfiguration)
        }
        DaemonLogging.bootstrap(level: settings.logLevel)
        MetricsExport.bootstrap()
        let logger = Logger(label: "family-broker")
        logger.debug("configuration", metadata: settings.sources.mapValues { "\($0)" })
        let service = FamilyBrokerService(
            options: settings.options, logger: logger, clock: clockFile.map { OffsetClock(path: $0).now } ?? Date.init)
        let ops = settings.metrics.map { address in
            OpsServer(address: address, addressFile: settings.metricsAddressFile, logger: logger, ready: { service.readiness })
        }
        do {
            try await DaemonRunner.run(service, ops: ops, shutdownTimeout: settings.shutdownTimeout, logger: logger)
        } catch let error as ConfigurationError {
            logger.critical("invalid configuration: \(error)")
            throw ExitCode(DaemonRunner.exitConfiguration)
        }
    }
}
