import ArgumentParser
import Foundation
import HearthTransport
import Logging
import ServiceLifecycle

/// Command-line options shared by child-device and parent-device.
public struct DeviceArguments: ParsableArguments {
    @Option(help: "The broker's ready file (JSON with its endpoints and public key); overrides the three options below.")
    public var brokerReady: String?

    @Option(help: "The broker's ROUTER endpoint.")
    public var brokerIngress = "tcp://127.0.0.1:7701"

    @Option(help: "The broker's XPUB endpoint.")
    public var brokerEgress = "tcp://127.0.0.1:7702"

    @Option(help: "File holding the broker's CURVE public key (Z85).")
    public var brokerKeyFile = ".hearth/broker/broker.pub"

    @Option(help: "This device's CURVE secret key file (0600); made on first run if missing, with its .pub beside it.")
    public var keyFile: String

    @Option(help: "Directory for the device's database.")
    public var state: String

    @Option(help: "Path of the local ipc socket (default: under $HEARTH_RUNTIME_DIR, $XDG_RUNTIME_DIR/hearth or /tmp/hearth-UID).")
    public var socket: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    public var logLevel: String = "info"

    public init() {}

    /// Resolves the options, reading the broker's ready file or key file.
    public func options(defaultSocket: String) throws -> DeviceOptions {
        var ingress = brokerIngress
        var egress = brokerEgress
        let key: String
        if let brokerReady {
            guard let data = FileManager.default.contents(atPath: brokerReady),
                  let ready = try? JSONDecoder().decode(ReadyFile.self, from: data)
            else { throw ValidationError("--broker-ready \(brokerReady): cannot read the broker's ready file; is family-broker running?") }
            ingress = ready.ingress
            egress = ready.egress
            key = ready.publicKey
        } else {
            do {
                key = try KeyFiles.loadPublic(brokerKeyFile)
            } catch {
                throw ValidationError("--broker-key-file: \(error)")
            }
        }
        return DeviceOptions(
            brokerIngress: ingress, brokerEgress: egress, brokerPublicKey: key, secretKeyFile: keyFile,
            stateDirectory: state, localSocket: socket ?? defaultSocket)
    }

    /// Runs a device daemon until SIGTERM or SIGINT.
    public func run(behavior: some DeviceBehavior, defaultSocket: String) async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: behavior.name)
        let runtime = try DeviceRuntime(options: try options(defaultSocket: defaultSocket), behavior: behavior, logger: logger)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: runtime)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    private struct ReadyFile: Decodable {
        var ingress: String
        var egress: String
        var publicKey: String
    }
}
