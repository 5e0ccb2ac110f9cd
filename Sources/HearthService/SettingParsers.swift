import Foundation
public import Logging

/// Parsers for settings' text; each throws a `SettingProblem` saying what a valid value looks like.
public enum SettingParsers {
    /// A ZeroMQ endpoint the daemon binds or connects: `tcp://HOST:PORT` (port 0 to 65535, or `*` to bind any),
    /// `ipc://PATH` or `inproc://NAME`.
    public static func endpoint(_ text: String) throws -> String {
        let schemes = ["tcp://", "ipc://", "inproc://"]
        guard let scheme = schemes.first(where: text.hasPrefix) else {
            throw SettingProblem(
                "'\(text)' is not a ZeroMQ endpoint: expected tcp://HOST:PORT, ipc://PATH or inproc://NAME")
        }
        let rest = text.dropFirst(scheme.count)
        guard !rest.isEmpty else { throw SettingProblem("'\(text)' names no address after \(scheme)") }
        if scheme == "tcp://" {
            guard let colon = rest.lastIndex(of: ":"), colon != rest.startIndex else {
                throw SettingProblem("'\(text)' has no port: expected tcp://HOST:PORT")
            }
            let port = rest[rest.index(after: colon)...]
            guard port == "*" || UInt16(port) != nil else {
                throw SettingProblem("'\(text)': port '\(port)' is not a number from 0 to 65535 (or *)")
            }
        }
        return text
    }

    /// A number of seconds within `range`, as a `Duration`.
    public static func seconds(in range: ClosedRange<Double>) -> (String) throws -> Duration {
        { text in
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
                throw SettingProblem("'\(text)' is not a number of seconds")
            }
            guard range.contains(value) else {
                throw SettingProblem(
                    "\(text) seconds is out of range: from \(format(range.lowerBound)) to \(format(range.upperBound))")
            }
            return .milliseconds(Int64((value * 1000).rounded()))
        }
    }

    /// A whole number within `range`.
    public static func integer(in range: ClosedRange<Int>) -> (String) throws -> Int {
        { text in
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw SettingProblem("'\(text)' is not a whole number")
            }
            guard range.contains(value) else {
                throw SettingProblem("\(value) is out of range: from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
    }

    /// A swift-log level.
    public static func logLevel(_ text: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw SettingProblem(
                "'\(text)' is not a log level: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return level
    }

    /// A non-empty path.
    public static func path(_ text: String) throws -> String {
        guard !text.isEmpty else { throw SettingProblem("is empty") }
        guard !text.contains("\0") else { throw SettingProblem("contains a NUL byte") }
        return text
    }

    /// The HTTP listen address for metrics and health checks: `HOST:PORT` with an IPv4 host (or `localhost`), port
    /// 0 picking a free one; `off` (or empty) for none.
    public static func listenAddress(_ text: String) throws -> ListenAddress? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.lowercased() == "off" { return nil }
        guard let colon = trimmed.lastIndex(of: ":") else {
            throw SettingProblem("'\(text)' is not HOST:PORT (or off)")
        }
        var host = String(trimmed[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) else {
            throw SettingProblem("'\(text)': host '\(host)' is not an IPv4 address such as 127.0.0.1")
        }
        guard let port = UInt16(trimmed[trimmed.index(after: colon)...]) else {
            throw SettingProblem("'\(text)': port is not a number from 0 to 65535")
        }
        return ListenAddress(host: host, port: port)
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// Where the daemon's HTTP endpoint (metrics, health) listens.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public var description: String { "\(host):\(port)" }
}
