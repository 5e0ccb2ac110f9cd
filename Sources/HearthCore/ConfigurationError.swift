/// Invalid configuration, refused at start-up: which file, which key, and why.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var source: String
    public var key: String
    public var reason: String

    public init(source: String, key: String, reason: String) {
        self.source = source
        self.key = key
        self.reason = reason
    }

    public var description: String { key.isEmpty ? "\(source): \(reason)" : "\(source): \(key): \(reason)" }
}
