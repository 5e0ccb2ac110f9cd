public import ArgumentParser
import Foundation
import HearthCore
import HearthService
public import Logging

/// Command-line options shared by child-device and parent-device. Each is optional here: a default would hide the
/// environment and the config file; the defaults are in `DeviceSettings`. Names match its keys.
public struct DeviceArguments: ParsableArguments {
    @Option(help: ArgumentHelp(DaemonSettings.configKey.help, valueName: "file")) public var config: String?
    @Option(help: ArgumentHelp(DeviceSettings.brokers.help, valueName: "list")) public var brokers: String?
    @Option(help: ArgumentHelp(DeviceSettings.brokerReady.help, valueName: "file")) public var brokerReady: String?
    @Option(help: ArgumentHelp(DeviceSettings.brokerIngress.help, valueName: "endpoint")) public var brokerIngress:
        String?
    @Option(help: ArgumentHelp(DeviceSettings.brokerEgress.help, valueName: "endpoint")) public var brokerEgress:
        String?
    @Option(help: ArgumentHelp(DeviceSettings.brokerKeyFile.help, valueName: "file")) public var brokerKeyFile: String?
    @Option(help: ArgumentHelp(DeviceSettings.keyFile.help + " Required.", valueName: "file")) public var keyFile:
        String?
    @Option(help: ArgumentHelp(DeviceSettings.state.help + " Required.", valueName: "dir")) public var state: String?
    @Option(
        help: ArgumentHelp(
            DeviceSettings.socket.help
                + " Default: under $HEARTH_RUNTIME_DIR, $XDG_RUNTIME_DIR/hearth or /tmp/hearth-UID.", valueName: "path")
    )
    public var socket: String?
    @Option(help: ArgumentHelp(DeviceSettings.logLevel.help, valueName: "level")) public var logLevel: String?
    @Option(help: ArgumentHelp(DeviceSettings.metrics.help, valueName: "host:port")) public var metrics: String?
    @Option(help: ArgumentHelp(DeviceSettings.shutdownTimeout.help, valueName: "seconds")) public var shutdownTimeout:
        String?

    public init() {}

    var flags: [String: String?] {
        [
            "config": config, "brokers": brokers, "brokerReady": brokerReady, "brokerIngress": brokerIngress,
            "brokerEgress": brokerEgress,
            "brokerKeyFile": brokerKeyFile, "keyFile": keyFile, "state": state, "socket": socket, "logLevel": logLevel,
            "metrics": metrics, "shutdownTimeout": shutdownTimeout,
        ]
    }

    /// Runs the device daemon `name`, built by `make`, until SIGTERM or SIGINT; invalid configuration exits with
    /// status 78, naming the key, and a port in use with 75 (`AddressInUse`).
    public func run(
        daemon name: String, defaultSocket: String, make: (DeviceOptions, Logger) throws -> DeviceRuntime
    ) async throws {
        let settings: DeviceSettings
        do {
            settings = try DeviceSettings(
                try await DaemonSettings(
                    daemon: name, environmentPrefix: DeviceSettings.environmentPrefix(daemon: name),
                    keys: DeviceSettings.keys, flags: flags),
                defaultSocket: defaultSocket)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("\(name): invalid configuration: \(error)\n".utf8))
            throw ExitCode(DaemonRunner.exitConfiguration)
        }
        // Whatever the daemon writes (its database, the page's files, keys) is its user's alone.
        umask(0o077)
        DaemonLogging.bootstrap(level: settings.logLevel)
        MetricsExport.bootstrap()
        let logger = Logger(label: name)
        let runtime = try make(settings.options, logger)
        let ops = settings.metrics.map { address in
            OpsServer(
                address: address, addressFile: settings.metricsAddressFile, logger: logger, ready: { runtime.readiness }
            )
        }
        do {
            try await DaemonRunner.run(runtime, ops: ops, shutdownTimeout: settings.shutdownTimeout, logger: logger)
        } catch let error where AddressInUse.matches(error) {
            logger.critical("\(AddressInUse.message(error))")
            throw ExitCode(AddressInUse.exitStatus)
        }
    }
}
