import BrokerCore
import BrokerPostgres
import Foundation
import HearthCore
public import HearthService
import HearthTransport
public import Logging

/// family-broker's settings, each declared once in `all`: its key (as the config file, the flag and the environment
/// spell it), its default and help, and how its value is read into `BrokerSettings`. The key list, the command
/// line's flags and the start-up log all come from `all`.
public struct BrokerSettings: Sendable {
    public static let environmentPrefix = "HEARTH_BROKER"

    /// One setting: its key, the value name its flag shows, and how its value is read and checked.
    public struct Setting: Sendable {
        public let key: SettingKey
        public let valueName: String
        let read: @Sendable (DaemonSettings, inout BrokerSettings) throws -> Void

        init(
            _ name: String, default defaultDescription: String, _ valueName: String, _ help: String,
            read: @escaping @Sendable (DaemonSettings, SettingKey, inout BrokerSettings) throws -> Void
        ) {
            let key = SettingKey(name, default: defaultDescription, help: help)
            self.key = key
            self.valueName = valueName
            self.read = { settings, broker in try read(settings, key, &broker) }
        }
    }

    /// Every setting, in the order the documentation lists them and in which they are read (a key may use the ones
    /// before it: `keyFile`'s default is in `state`).
    public static let all: [Setting] = [
        Setting(
            "ingress", default: "tcp://127.0.0.1:7701", "endpoint",
            "ROUTER endpoint for device commands (port 0: pick a free one, see the ready file)."
        ) { s, key, b in
            b.options.ingress = try s.get(key, default: b.options.ingress, SettingParsers.endpoint)
        },
        Setting("egress", default: "tcp://127.0.0.1:7702", "endpoint", "XPUB endpoint for device events.") {
            s, key, b in
            b.options.egress = try s.get(key, default: b.options.egress, SettingParsers.endpoint)
            guard b.options.ingress != b.options.egress || b.options.ingress.hasSuffix(":0") else {
                throw try s.problem(key, "is the same endpoint as ingress")
            }
        },
        Setting(
            "state", default: ".hearth/broker", "dir",
            "Directory for the database, the ready file and (unless keyFile is set) the broker key."
        ) { s, key, b in
            b.options.stateDirectory = try s.get(key, default: b.options.stateDirectory, SettingParsers.path)
        },
        Setting(
            "storePasswordFile", default: "HEARTH_STORE_PASSWORD", "file",
            "File holding the PostgreSQL store's password (else the HEARTH_STORE_PASSWORD environment variable)."
        ) { s, key, b in
            b.storePasswordFile = try readableFile(key, s)
        },
        Setting(
            "store", default: "sqlite", "url",
            "sqlite (<state>/broker.sqlite) or postgres://USER@HOST:PORT/DB, without a password in it."
        ) { s, key, b in
            let file = b.storePasswordFile
            do {
                b.options.store = try s.get(key, default: .sqlite) { try StoreLocation.parse($0, passwordFile: file) }
            } catch let notBuilt as PostgreSQLNotBuilt {
                // A configuration error like any other (exit 78), named by where the setting came from.
                throw try s.problem(key, notBuilt.description)
            }
        },
        Setting(
            "storeConnectRetry", default: "0", "seconds",
            "Seconds the broker keeps trying to reach its PostgreSQL store at start before exiting 78 (0 to 86400)."
        ) { s, key, b in
            b.options.storeConnectRetry = try s.get(key, default: .zero, SettingParsers.seconds(in: 0...86_400))
        },
        Setting(
            "storeStatementTimeout", default: "15", "seconds",
            "Seconds a PostgreSQL statement may go unanswered before the broker drops the connection (1 to 3600)."
        ) { s, key, b in
            b.options.storeStatementTimeout = try s.get(
                key, default: b.options.storeStatementTimeout, SettingParsers.seconds(in: 1...3600))
        },
        Setting(
            "partitions", default: "64", "count",
            "PostgreSQL store: partitions of the families, the same on every broker of the cluster (1 to 65536)."
        ) { s, key, b in
            b.options.cluster.partitions = try s.get(key, default: 64, SettingParsers.integer(in: 1...65_536))
        },
        Setting(
            "brokerName", default: "<host name>:<ingress port>", "name",
            "PostgreSQL store: this broker's name in the cluster, unique among its brokers."
        ) { s, key, b in
            b.options.cluster.brokerName = try s.optional(key) { text in
                let name = text.trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty, name.count <= 200 else { throw SettingProblem("'\(text)' is not a broker name") }
                return name
            }
        },
        Setting(
            "advertiseIngress", default: "the bound ingress", "endpoint",
            "PostgreSQL store: the ingress endpoint devices are redirected to (when it differs from the bound one)."
        ) { s, key, b in
            b.options.cluster.advertiseIngress = try s.optional(key, SettingParsers.endpoint)
        },
        Setting(
            "advertiseEgress", default: "the bound egress", "endpoint",
            "PostgreSQL store: the egress endpoint devices are redirected to (when it differs from the bound one)."
        ) { s, key, b in
            b.options.cluster.advertiseEgress = try s.optional(key, SettingParsers.endpoint)
        },
        Setting(
            "leaseSeconds", default: "10", "seconds",
            "PostgreSQL store: seconds a partition's lease lasts unrenewed; renewed every third of it (1 to 3600)."
        ) { s, key, b in
            b.options.cluster.leaseDuration = try s.get(
                key, default: .seconds(10), SettingParsers.seconds(in: 1...3600))
        },
        Setting(
            "families", default: "config/demo-family.yaml", "file",
            "The family file (YAML): families, members, devices."
        ) { s, key, b in
            let families = try s.get(key, default: b.options.familyFile, SettingParsers.path)
            guard FileManager.default.isReadableFile(atPath: families) else {
                throw try s.problem(key, "cannot read the family file '\(families)'")
            }
            b.options.familyFile = families
        },
        Setting(
            "keysDir", default: "the family file's directory", "dir",
            "Directory for relative keyFile entries of the family file."
        ) { s, key, b in
            guard let keysDir = try s.optional(key, SettingParsers.path) else { return }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: keysDir, isDirectory: &isDirectory), isDirectory.boolValue
            else {
                throw try s.problem(key, "'\(keysDir)' is not a directory")
            }
            b.options.keysDirectory = keysDir
        },
        Setting(
            "keyFile", default: "<state>/broker.key", "file",
            "The broker's CURVE secret key file; made on first run if missing, with its .pub beside it."
        ) { s, key, b in
            b.options.secretKeyFile =
                try s.optional(key, SettingParsers.path) ?? b.options.stateDirectory + "/broker.key"
            guard FileManager.default.fileExists(atPath: b.options.secretKeyFile) else { return }
            do {
                _ = try KeyFiles.loadPair(secretPath: b.options.secretKeyFile)
            } catch let failure as KeyFiles.Failure {
                throw try s.problem(key, failure.description)
            }
        },
        Setting(
            "heartbeat", default: "2", "seconds", "Seconds between heartbeats to each subscribed member (0.05 to 3600)."
        ) { s, key, b in
            b.options.heartbeatInterval = try s.get(key, default: .seconds(2), SettingParsers.seconds(in: 0.05...3600))
        },
        Setting(
            "subscriberHwm", default: "10000", "count",
            "Events queued per subscriber before the broker drops them for it; it then catches up by syncing (1 to 10000000)."
        ) { s, key, b in
            b.options.subscriberHighWaterMark = Int32(
                try s.get(key, default: 10_000, SettingParsers.integer(in: 1...10_000_000)))
        },
        Setting(
            "regions", default: "the compiled-in table", "file",
            "Age of majority per region (YAML, like config/regions.yaml)."
        ) { s, key, b in
            b.options.regionsFile = try readableFile(key, s)
        },
        Setting(
            "childDefaults", default: "compiled in", "file",
            "New children's defaults, emergency numbers and ask limit (YAML, like config/child-defaults.yaml)."
        ) { s, key, b in
            b.options.childDefaultsFile = try readableFile(key, s)
        },
        Setting("maxFamilyMembers", default: "6", "count", "Most members per family (1 to 1000).") { s, key, b in
            b.options.maxFamilyMembers = try s.get(
                key, default: Directory.defaultMaxFamilyMembers, SettingParsers.integer(in: 1...1000))
        },
        Setting(
            "askLimit", default: "the child defaults' askLimit", "count/seconds",
            "Questions one child may ask per period, as COUNT/SECONDS, e.g. 30/3600."
        ) { s, key, b in
            b.options.askLimit = try s.optional(key, parseAskLimit)
        },
        Setting(
            "deviceRate", default: "200", "per-second",
            "Commands per second each device may send, sustained; bursts of 5x are allowed (0.1 to 100000)."
        ) { s, key, b in
            let rate = try s.get(key, default: 200, parseRate)
            b.options.deviceCommandRate = rate
            b.options.deviceCommandBurst = rate * 5
        },
        Setting(
            "hostileCutoff", default: "600", "seconds",
            "Seconds a device is refused after sending what no device sends (a command of many frames, a subscription to another topic) (1 to 86400)."
        ) { s, key, b in
            b.options.hostileCutOff = try s.get(key, default: .seconds(600), SettingParsers.seconds(in: 1...86_400))
        },
        Setting(
            "agePromptTimeout", default: "60", "seconds",
            "Seconds a Declared Age Range Ask First prompt waits for the user; then it counts as declined (0.1 to 86400)."
        ) { s, key, b in
            b.options.agePromptTimeout = try s.get(key, default: .seconds(60), SettingParsers.seconds(in: 0.1...86_400))
        },
        Setting(
            "logLevel", default: "info", "level", "Log level: trace, debug, info, notice, warning, error, critical."
        ) { s, key, b in
            b.logLevel = try s.get(key, default: .info, SettingParsers.logLevel)
        },
        Setting(
            "metrics", default: "off", "host:port",
            "HOST:PORT for /metrics, /healthz and /readyz over HTTP (port 0: pick a free one, see <state>/metrics.address); off for none."
        ) { s, key, b in
            b.metrics = try s.get(key, default: nil, SettingParsers.listenAddress)
        },
        Setting(
            "shutdownTimeout", default: "5", "seconds",
            "Seconds from SIGTERM by which the broker has exited, work read before it committed and answered (1 to 300)."
        ) { s, key, b in
            b.shutdownTimeout = try s.get(key, default: .seconds(5), SettingParsers.seconds(in: 1...300))
        },
    ]

    /// Every key, in the order the documentation lists them.
    public static let keys = all.map(\.key)

    public var options: BrokerOptions
    public var logLevel: Logger.Level = .info
    public var metrics: ListenAddress?
    public var shutdownTimeout: Duration = .seconds(5)
    /// The `storePasswordFile` setting, read by `store`.
    var storePasswordFile: String?
    /// Where each key's value came from, for the start-up log: only keys that a source set.
    public var sources: [String: String] = [:]

    /// Reads and validates every key; throws a `ConfigurationError` naming the first bad one.
    public init(_ settings: DaemonSettings) throws {
        options = BrokerOptions(
            ingress: "tcp://127.0.0.1:7701", egress: "tcp://127.0.0.1:7702", stateDirectory: ".hearth/broker",
            familyFile: "config/demo-family.yaml")
        for setting in Self.all {
            try setting.read(settings, &self)
            if let value = try settings.value(setting.key) { sources[setting.key.name] = value.source }
        }
    }

    /// The flags given on a command line, by key name: `--subscriber-hwm 5` or `--subscriber-hwm=5` sets
    /// `subscriberHwm`, `--config` the config file. Throws `ConfigurationError` for a flag no key declares.
    public static func flags(from arguments: [String]) throws -> [String: String?] {
        let byFlag = Dictionary(uniqueKeysWithValues: ([DaemonSettings.configKey] + keys).map { ($0.flag, $0.name) })
        var flags: [String: String?] = [:]
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard let name = byFlag[parts[0]] else {
                throw ConfigurationError(
                    source: "the command line", key: argument,
                    reason: "unknown flag; the flags are \(byFlag.keys.sorted().joined(separator: ", "))")
            }
            guard let value = parts.count == 2 ? parts[1] : rest.popFirst() else {
                throw ConfigurationError(source: parts[0], key: name, reason: "needs a value")
            }
            flags[name] = value
        }
        return flags
    }

    /// Every flag with its value name and help, as `--help` shows them.
    public static var flagHelp: String {
        ([DaemonSettings.configKey] + keys).map { key in
            let valueName = all.first { $0.key == key }?.valueName ?? "file"
            return "  \(key.flag) <\(valueName)>\n        \(key.help)"
        }.joined(separator: "\n")
    }

    private static func readableFile(_ key: SettingKey, _ settings: DaemonSettings) throws -> String? {
        guard let path = try settings.optional(key, SettingParsers.path) else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw try settings.problem(key, "cannot read '\(path)'")
        }
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
        guard (0.1...100_000).contains(rate) else {
            throw SettingProblem("\(text) is out of range: from 0.1 to 100000")
        }
        return rate
    }

    /// Where the ops endpoint writes the address it listens on.
    public var metricsAddressFile: String { options.stateDirectory + "/metrics.address" }
}
