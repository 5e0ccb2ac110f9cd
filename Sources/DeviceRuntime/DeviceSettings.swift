import Foundation
import HearthCore
public import HearthService
import HearthTransport
public import Logging

/// child-device's and parent-device's configuration keys, their defaults, and how they become `DeviceOptions`.
public struct DeviceSettings: Sendable {
    public static let brokers = SettingKey(
        "brokers", default: "none",
        help:
            "Brokers in order, comma-separated: ready files or 'INGRESS EGRESS KEYFILE'; overrides the broker* keys."
    )
    public static let brokerReady = SettingKey(
        "brokerReady", default: "none",
        help:
            "The broker's ready file (JSON with its endpoints and public key); overrides brokerIngress, brokerEgress and brokerKeyFile."
    )
    public static let brokerIngress = SettingKey(
        "brokerIngress", default: "tcp://127.0.0.1:7701", help: "The broker's ROUTER endpoint.")
    public static let brokerEgress = SettingKey(
        "brokerEgress", default: "tcp://127.0.0.1:7702", help: "The broker's XPUB endpoint.")
    public static let brokerKeyFile = SettingKey(
        "brokerKeyFile", default: ".hearth/broker/broker.pub", help: "File holding the broker's CURVE public key (Z85)."
    )
    public static let keyFile = SettingKey(
        "keyFile", default: "required",
        help: "This device's CURVE secret key file (0600); made on first run if missing, with its .pub beside it.")
    public static let state = SettingKey("state", default: "required", help: "Directory for the device's database.")
    public static let socket = SettingKey(
        "socket", default: "$HEARTH_RUNTIME_DIR, $XDG_RUNTIME_DIR/hearth or /tmp/hearth-UID, + /<daemon>.sock",
        help: "Path of the local ipc socket (made 0600).")
    public static let logLevel = SettingKey(
        "logLevel", default: "info", help: "Log level: trace, debug, info, notice, warning, error, critical.")
    public static let metrics = SettingKey(
        "metrics", default: "off",
        help:
            "HOST:PORT for /metrics, /healthz and /readyz over HTTP (port 0: pick a free one, see <state>/metrics.address); off for none."
    )
    public static let shutdownTimeout = SettingKey(
        "shutdownTimeout", default: "5", help: "Seconds from SIGTERM by which the daemon has exited (1 to 300).")

    /// Every key, in the order the documentation lists them.
    public static let keys = [
        brokers, brokerReady, brokerIngress, brokerEgress, brokerKeyFile, keyFile, state, socket, logLevel, metrics,
        shutdownTimeout,
    ]

    /// `HEARTH_CHILD_DEVICE` for child-device, `HEARTH_PARENT_DEVICE` for parent-device.
    public static func environmentPrefix(daemon: String) -> String {
        "HEARTH_" + daemon.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The longest path a Unix socket address holds (sun_path, without its NUL).
    static let maxSocketPath = 107

    public var options: DeviceOptions
    public var logLevel: Logger.Level
    public var metrics: ListenAddress?
    public var shutdownTimeout: Duration

    /// Reads and validates every key, and the broker's key; throws a `ConfigurationError` naming the first bad one.
    public init(_ settings: DaemonSettings, defaultSocket: String) throws {
        let keyFile = try settings.required(Self.keyFile, SettingParsers.path)
        if FileManager.default.fileExists(atPath: keyFile) {
            do {
                _ = try KeyFiles.loadPair(secretPath: keyFile)
            } catch let failure as KeyFiles.Failure {
                throw try settings.problem(Self.keyFile, failure.description)
            }
        }
        let state = try settings.required(Self.state, SettingParsers.path)
        let socket = try settings.get(Self.socket, default: defaultSocket, SettingParsers.path)
        guard socket.utf8.count <= Self.maxSocketPath else {
            throw try settings.problem(
                Self.socket,
                "'\(socket)' is \(socket.utf8.count) bytes, longer than the \(Self.maxSocketPath) a Unix socket path holds"
            )
        }
        let brokers = try Self.brokers(settings)
        options = DeviceOptions(
            brokers: brokers, secretKeyFile: keyFile, stateDirectory: state, localSocket: socket)
        logLevel = try settings.get(Self.logLevel, default: .info, SettingParsers.logLevel)
        metrics = try settings.get(Self.metrics, default: nil, SettingParsers.listenAddress)
        shutdownTimeout = try settings.get(
            Self.shutdownTimeout, default: .seconds(5), SettingParsers.seconds(in: 1...300))
    }

    /// Where the ops endpoint writes the address it listens on.
    public var metricsAddressFile: String { options.stateDirectory + "/metrics.address" }

    /// The `brokers` list, else the one broker of `brokerReady`, else of `brokerIngress`, `brokerEgress` and
    /// `brokerKeyFile`; each ready or key file is read now.
    static func brokers(_ settings: DaemonSettings) throws -> [BrokerAddress] {
        if let entries = try settings.optional(Self.brokers, BrokerListEntry.parseList) {
            return try entries.enumerated().map { index, entry in
                do {
                    return try entry.resolve()
                } catch let problem as SettingProblem {
                    throw try settings.problem(Self.brokers, "entry \(index + 1): \(problem.reason)")
                }
            }
        }
        if let readyFile = try settings.optional(Self.brokerReady, SettingParsers.path) {
            do {
                return [try BrokerListEntry.readyFile(readyFile).resolve()]
            } catch let problem as SettingProblem {
                throw try settings.problem(Self.brokerReady, problem.reason)
            }
        }
        let ingress = try settings.get(Self.brokerIngress, default: "tcp://127.0.0.1:7701", SettingParsers.endpoint)
        let egress = try settings.get(Self.brokerEgress, default: "tcp://127.0.0.1:7702", SettingParsers.endpoint)
        let path = try settings.get(Self.brokerKeyFile, default: ".hearth/broker/broker.pub", SettingParsers.path)
        do {
            return [BrokerAddress(ingress: ingress, egress: egress, publicKey: try KeyFiles.loadPublic(path))]
        } catch let failure as KeyFiles.Failure {
            throw try settings.problem(Self.brokerKeyFile, failure.description)
        }
    }
}
