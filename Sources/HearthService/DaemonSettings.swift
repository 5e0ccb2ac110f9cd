import Configuration
public import Foundation
public import HearthCore
import SystemPackage
import Yams

/// A daemon's configuration, read with swift-configuration from four sources; the first that sets a key wins:
/// command-line flags, environment variables (`PREFIX_KEY_NAME`), the YAML config file (`--config` or
/// `PREFIX_CONFIG`), and the built-in defaults.
///
/// Every value is validated when it is read, and a bad one is refused with a `ConfigurationError` naming the source,
/// the key and the reason; so is an unknown key in the file or an unknown variable under the daemon's prefix, since
/// a misspelt key silently ignored is a setting the operator believes is in force and is not.
public struct DaemonSettings: Sendable {
    /// A key's raw text and where it came from: `--heartbeat`, `HEARTH_BROKER_HEARTBEAT` or the config file's path.
    public struct Value: Sendable, Equatable {
        public var text: String
        public var source: String

        public init(text: String, source: String) {
            self.text = text
            self.source = source
        }
    }

    /// The key naming the config file itself: only a flag or an environment variable can set it.
    public static let configKey = SettingKey("config", default: "none", help: "YAML file with any of the other keys.")

    public let daemon: String
    public let environmentPrefix: String
    public let keys: [SettingKey]
    /// The config file read, if any.
    public let configFile: String?

    private let reader: ConfigReader
    private let sources: [Source]
    private let recorder: SourceRecorder

    private enum Source: Sendable {
        case flags
        case environment
        case file(String)
    }

    /// Reads the sources. `flags` maps key names to the flags' values (nil: not given on the command line).
    public init(
        daemon: String, environmentPrefix: String, keys: [SettingKey], flags: [String: String?],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        self.daemon = daemon
        self.environmentPrefix = environmentPrefix
        self.keys = keys
        let known = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0) })
        var flagValues: [AbsoluteConfigKey: ConfigValue] = [:]
        for (name, value) in flags {
            guard let value else { continue }
            guard known[name] != nil || name == Self.configKey.name else {
                preconditionFailure("flag for undeclared key '\(name)'")
            }
            flagValues[AbsoluteConfigKey([name])] = ConfigValue(.string(value), isSecret: false)
        }
        try Self.refuseUnknownVariables(environment, prefix: environmentPrefix, keys: keys)

        let configVariable = Self.configKey.environmentVariable(prefix: environmentPrefix)
        let file: String? = (flags[Self.configKey.name] ?? nil) ?? environment[configVariable]
        let fileSource = (flags[Self.configKey.name] ?? nil) != nil ? Self.configKey.flag : configVariable
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "flags", values: flagValues),
            EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(
                with: ConfigKey(environmentPrefix.lowercased().split(separator: "_").map(String.init))),
        ]
        var sources: [Source] = [.flags, .environment]
        if let file {
            guard !file.isEmpty else {
                throw ConfigurationError(source: fileSource, key: Self.configKey.name, reason: "is empty")
            }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ConfigurationError(
                    source: fileSource, key: Self.configKey.name, reason: "cannot read the config file '\(file)'")
            }
            try Self.refuseUnknownKeys(in: data, file: file, keys: keys)
            do {
                providers.append(try await FileProvider<YAMLSnapshot>(filePath: FilePath(file)))
            } catch {
                throw ConfigurationError(source: file, key: "", reason: "not a valid config file: \(error)")
            }
            sources.append(.file(file))
        }
        self.configFile = file
        self.sources = sources
        let recorder = SourceRecorder()
        self.recorder = recorder
        self.reader = ConfigReader(providers: providers, accessReporter: recorder)
    }

    /// The raw text of `key` and its source; nil if no source sets it.
    public func value(_ key: SettingKey) throws -> Value? {
        precondition(keys.contains(key), "undeclared key '\(key.name)'")
        let text = reader.string(forKey: ConfigKey([key.name]))
        guard let results = recorder.results(for: key.name) else { return nil }
        for (index, result) in results.enumerated() where index < sources.count {
            switch result.result {
            case .failure(let error):
                throw ConfigurationError(
                    source: describe(sources[index], key: key), key: key.name,
                    reason: "expected a single value (\(error))")
            case .success(let lookup) where lookup.value != nil:
                guard let text else {
                    throw ConfigurationError(
                        source: describe(sources[index], key: key), key: key.name, reason: "expected a single value")
                }
                let source =
                    if case .environment = sources[index] { lookup.encodedKey } else {
                        describe(sources[index], key: key)
                    }
                return Value(text: text, source: source)
            default:
                continue
            }
        }
        return nil
    }

    /// The key's value parsed and validated by `parse`, or `defaultValue` when no source sets it.
    public func get<T>(_ key: SettingKey, default defaultValue: T, _ parse: (String) throws -> T) throws -> T {
        try optional(key, parse) ?? defaultValue
    }

    /// The key's value parsed and validated by `parse`, or nil when no source sets it.
    public func optional<T>(_ key: SettingKey, _ parse: (String) throws -> T) throws -> T? {
        guard let value = try value(key) else { return nil }
        do {
            return try parse(value.text)
        } catch let problem as SettingProblem {
            throw ConfigurationError(source: value.source, key: key.name, reason: problem.reason)
        }
    }

    /// The key's value; refused, naming every way to set it, when no source does.
    public func required<T>(_ key: SettingKey, _ parse: (String) throws -> T) throws -> T {
        guard let value = try optional(key, parse) else {
            throw ConfigurationError(
                source: daemon, key: key.name,
                reason:
                    "is required: give \(key.flag), \(key.environmentVariable(prefix: environmentPrefix)) or '\(key.name)' in the config file"
            )
        }
        return value
    }

    /// A problem with a key's value, named like any other: for checks that span keys or need the file system.
    public func problem(_ key: SettingKey, _ reason: String) throws -> ConfigurationError {
        let source = try value(key)?.source ?? "\(daemon) default"
        return ConfigurationError(source: source, key: key.name, reason: reason)
    }

    private func describe(_ source: Source, key: SettingKey) -> String {
        switch source {
        case .flags: key.flag
        case .environment: key.environmentVariable(prefix: environmentPrefix)
        case .file(let path): path
        }
    }

    private static func refuseUnknownVariables(
        _ environment: [String: String], prefix: String, keys: [SettingKey]
    ) throws {
        let known = Set((keys + [configKey]).map { $0.environmentVariable(prefix: prefix) })
        for name in environment.keys.sorted() where name.hasPrefix(prefix + "_") && !known.contains(name) {
            throw ConfigurationError(
                source: "environment", key: name,
                reason: "unknown setting; the variables are \(known.sorted().joined(separator: ", "))")
        }
    }

    private static func refuseUnknownKeys(in data: Data, file: String, keys: [SettingKey]) throws {
        let text = String(decoding: data, as: UTF8.self)
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch {
            throw ConfigurationError(source: file, key: "", reason: "not valid YAML: \(error)")
        }
        guard let node else { return }  // an empty file sets nothing
        guard let mapping = node.mapping else {
            throw ConfigurationError(source: file, key: "", reason: "must be a mapping of keys to values")
        }
        let known = Set(keys.map(\.name))
        for key in mapping.keys {
            guard let name = key.string, known.contains(name) else {
                throw ConfigurationError(
                    source: file, key: key.string ?? "\(key)",
                    reason: "unknown key; the keys are \(known.sorted().joined(separator: ", "))")
            }
        }
    }
}
