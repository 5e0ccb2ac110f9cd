import Foundation
import HearthCore
import HearthService
import HearthTransport
import Logging

/// family-broker's configuration keys, their defaults, and how they become `BrokerOptions`.
public struct BrokerSettings: Sendable {
    public static let environmentPrefix = "HEARTH_BROKER"

    public static let ingress = SettingKey("ingress", default: "tcp://127.0.0.1:7701", help: "ROUTER endpoint for device commands (port 0: pick a free one, see the ready file).")
    public static let egress = SettingKey("egress", default: "tcp://127.0.0.1:7702", help: "XPUB endpoint for device events.")
    public static let state = SettingKey("state", default: ".hearth/broker", help: "Directory for the database, the ready file and (unless keyFile is set) the broker key.")
    public static let families = SettingKey("families", default: "config/demo-family.yaml", help: "The family file (YAML): families, members, devices.")
    public static let keysDir = SettingKey("keysDir", default: "the family file's directory", help: "Directory for relative keyFile entries of the family file.")
    public static let keyFile = SettingKey("keyFile", default: "<state>/broker.key", help: "The broker's CURVE secret key file; made on first run if missing, with its .pub beside it.")
    public static let heartbeat = SettingKey("heartbeat", default: "2", help: "Seconds between heartbeats to each subscribed member (0.05 to 3600).")
    public static let subscriberHwm = SettingKey("subscriberHwm", default: "10000", help: "Events queued per subscriber before the broker drops them for it; it then catches up by syncing (1 to 10000000).")
    public static let regions = SettingKey("regions", default: "the compiled-in table", help: "Age of majority per region (YAML, like config/regions.yaml).")
    public static let childDefaults = SettingKey("childDefaults", default: "compiled in", help: "New children's defaults, emergency numbers and ask limit (YAML, like config/child-defaults.yaml).")
    public static let maxFamilyMembers = SettingKey("maxFamilyMembers", default: "6", help: "Most members per family (1 to 1000).")
    public static let askLimit = SettingKey("askLimit", default: "the child defaults' askLimit", help: "Questions one child may ask per period, as COUNT/SECONDS, e.g. 30/3600.")
    public static let deviceRate = SettingKey("deviceRate", default: "200", help: "Commands per second each device may send, sustained; bursts of 5x are allowed (0.1 to 100000).")
    public static let agePromptTimeout = SettingKey("agePromptTimeout", default: "60", help: "Seconds a Declared Age Range Ask First prompt waits for the user; then it counts as declined (0.1 to 86400).")
    public static let logLevel = SettingKey("logLevel", default: "info", help: "Log level: trace, debug, info, notice, warning, error, critical.")
    public static let metrics = SettingKey("metrics", default: "off", help: "HOST:PORT for /metrics, /healthz and /readyz over HTTP (port 0: pick a free one, see <state>/metrics.address); off for none.")
    public static let shutdownTimeout = SettingKey("shutdownTimeout", default: "5", help: "Seconds from SIGTERM by which the broker has exited, work read before it committed and answered (1 to 300).")

    /// Every key, in the order the documentation lists them.
    public static let keys = [
        ingress, egress, state, families, keysDir, keyFile, heartbeat, subscriberHwm, regions, childDefaults, maxFamilyMembers,
        askLimit, deviceRate, agePromptTimeout, logLevel, metrics, shutdownTimeout,
    ]

    public var options: BrokerOptions
    public var logLevel: Logger.Level
    public var metrics: ListenAddress?
    public var shutdownTimeout: Duration
    /// Where each key's value came from, for the start-up log: only keys that a source set.
    public var sources: [String: String]

    /// Reads and validates every key; throws a `ConfigurationError` naming the first bad one.
    public init(_ settings: DaemonSettings) throws {
        let state = try settings.get(Self.state, default: ".hearth/broker", SettingParsers.path)
        let families = try settings.get(Self.families, default: "config/demo-family.yaml", SettingParsers.path)
        guard FileManager.default.isReadableFile(atPath: families) else {
            throw try settings.problem(Self.families, "cannot read the family file '\(families)'")
        }
        let keysDir = try settings.optional(Self.keysDir, SettingParsers.path)
        if let keysDir {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: keysDir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw try settings.problem(Self.keysDir, "'\(keysDir)' is not a directory")
            }
        }
        options = BrokerOptions(
            ingress: try settings.get(Self.ingress, default: "tcp://127.0.0.1:7701", SettingParsers.endpoint),
            egress: try settings.get(Self.egress, default: "tcp://127.0.0.1:7702", SettingParsers.endpoint),
            stateDirectory: state, familyFile: families, keysDirectory: keysDir,
            secretKeyFile: try settings.optional(Self.keyFile, SettingParsers.path),
            heartbeatInterval: try settings.get(Self.heartbeat, default: .seconds(2), SettingParsers.seconds(in: 0.05...3600)),
            subscriberHighWaterMark: Int32(try settings.get(Self.subscriberHwm, default: 10_000, SettingParsers.integer(in: 1...10_000_000))))
        if FileManager.default.fileExists(atPath: options.secretKeyFile) {
            do {
                _ = try KeyFiles.loadPair(secretPath: options.secretKeyFile)
            } catch let failure as KeyFiles.Failure {
                throw try settings.problem(Self.keyFile, failure.description)
            }
        }
        options.regionsFile = try Self.readableFile(Self.regions, settings)
        options.childDefaultsFile = try Self.readableFile(Self.childDefaults, settings)
        options.maxFamilyMembers = try settings.get(Self.maxFamilyMembers, default: Directory.defaultMaxFamilyMembers, SettingParsers.integer(in: 1...1000))
        options.askLimit = try settings.optional(Self.askLimit, Self.parseAskLimit)
        let rate = try settings.get(Self.deviceRate, default: 200, Self.parseRate)
        options.deviceCommandRate = rate
        options.deviceCommandBurst = rate * 5
        options.agePromptTimeout = try settings.get(Self.agePromptTimeout, default: .seconds(60), SettingParsers.seconds(in: 0.1...86_400))
        guard options.ingress != options.egress || options.ingress.hasSuffix(":0") else {
            throw try settings.problem(Self.egress, "is the same endpoint as ingress")
        }
        logLevel = try settings.get(Self.logLevel, default: .info, SettingParsers.logLevel)
        metrics = try settings.get(Self.metrics, default: nil, SettingParsers.listenAddress)
        shutdownTimeout = try settings.get(Self.shutdownTimeout, default: .seconds(5), SettingParsers.seconds(in: 1...300))
        var sources: [String: String] = [:]
        for key in Self.keys {
            if let value = try settings.value(key) { sources[key.name] = value.source }
        }
        self.sources = sources
    }

    private static func readableFile(_ key: SettingKey, _ settings: DaemonSettings) throws -> String? {
        guard let path = try settings.optional(key, SettingParsers.path) else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else { throw try settings.problem(key, "cannot read '\(path)'") }
        return path
    }

    static func parseAskLimit(_ text: String) throws -> ChildDefaults.AskLimit {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let count = Int(parts[0]), let seconds = Int(parts[1]), count > 0, seconds > 0 else {
            throw SettingProblem("'\(text)' is not COUNT/SECONDS with both positive, e.g. 30/3600")
        }
        return ChildDefaults.AskLimit(count: count, perSeconds: seconds)
    }

    static func parseRate(_ text: String) throws -> Double {
        guard let rate = Double(text.trimmingCharacters(in: .whitespaces)), rate.isFinite else {
            throw SettingProblem("'\(text)' is not a number of commands per second")
        }
        guard (0.1...100_000).contains(rate) else { throw SettingProblem("\(text) is out of range: from 0.1 to 100000") }
        return rate
    }

    /// Where the ops endpoint writes the address it listens on.
    public var metricsAddressFile: String { options.stateDirectory + "/metrics.address" }
}
