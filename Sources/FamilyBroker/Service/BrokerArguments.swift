public import ArgumentParser
public import Foundation
import HearthCore
import HearthService
import Logging

/// The broker's command line, shared by the shipped `family-broker` and the test kit's `family-broker-lab`: every
/// setting's flag, read from `BrokerSettings.all` where the setting is declared (no flag is spelled here), and the
/// daemon's run. The lab's hooks are not flags of this group: the lab declares them itself and hands them to `run` as
/// programmatic options, so the shipped daemon's parser refuses them as unknown flags.
public struct BrokerArguments: ParsableArguments {
    /// Without defaults, so that the environment and the config file still count (defaults are in BrokerSettings).
    @Argument(parsing: .allUnrecognized, help: .hidden) public var settingFlags: [String] = []

    public init() {}

    /// `--help`'s text after the abstract: where settings come from, then every setting's flag.
    public static var discussion: String {
        """
        Each setting comes from, in order of precedence: its flag, its environment variable \
        (\(BrokerSettings.environmentPrefix)_ and the key in upper snake case, e.g. HEARTH_BROKER_SUBSCRIBER_HWM), \
        the config file (--config), or its default. docs/CONFIGURATION.md lists them all.

        Settings:
        \(BrokerSettings.flagHelp)
        """
    }

    /// Runs the broker until SIGTERM or SIGINT: invalid configuration exits with status 78, naming the key, and a port
    /// in use with 75 (`AddressInUse`). `configure` changes the options the settings made (the lab's hooks); `clock`
    /// is the broker's "now".
    public func run(
        configure: (inout BrokerOptions) -> Void = { _ in }, clock: @escaping @Sendable () -> Date = Date.init
    ) async throws {
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
        configure(&options)
        let service = FamilyBrokerService(options: options, logger: logger, clock: clock)
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
