/// One configuration key of a daemon, as it is spelled in each source: `subscriberHwm` in the YAML file,
/// `--subscriber-hwm` on the command line, `HEARTH_BROKER_SUBSCRIBER_HWM` in the environment.
public struct SettingKey: Sendable, Hashable {
    /// The key in the config file (camelCase).
    public let name: String
    /// One line on what it sets.
    public let help: String
    /// The default, as documented (`none` when the key is optional, `required` when it must be given).
    public let defaultDescription: String

    public init(_ name: String, default defaultDescription: String, help: String) {
        self.name = name
        self.help = help
        self.defaultDescription = defaultDescription
    }

    /// The command-line flag: `keysDir` is `--keys-dir`.
    public var flag: String { "--" + Self.words(of: name).joined(separator: "-") }

    /// The environment variable under a daemon's prefix: `keysDir` under `HEARTH_BROKER` is `HEARTH_BROKER_KEYS_DIR`.
    /// swift-configuration's `EnvironmentVariablesProvider` encodes keys the same way (tested).
    public func environmentVariable(prefix: String) -> String {
        ([prefix] + Self.words(of: name).map { $0.uppercased() }).joined(separator: "_")
    }

    private static func words(of name: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in name {
            if character.isUppercase, !current.isEmpty {
                words.append(current)
                current = ""
            }
            current.append(character.lowercased())
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
