/// Why a setting's text is not a valid value; `DaemonSettings` adds the source and the key.
public struct SettingProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}
