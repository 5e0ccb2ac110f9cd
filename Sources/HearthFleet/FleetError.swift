/// Why a fleet could not do what a test asked; `logs` holds each daemon's recent lines, for CI output.
public struct FleetError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var logs: String

    public init(_ message: String, logs: String = "") {
        self.message = message
        self.logs = logs
    }

    public var description: String { logs.isEmpty ? message : "\(message)\n\(logs)" }
}
