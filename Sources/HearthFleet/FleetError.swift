/// Why a fleet could not do what a test asked; `logs` holds each daemon's recent lines, for CI output.
public struct FleetError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var logs: String

    public init(_ message: String, logs: String = "") {
        self.message = message
        self.logs = logs
    }

    /// A fault that needs a separate process, asked of a fleet running in-process.
    public static func notSupportedInProcess(_ what: String) -> FleetError {
        FleetError(
            "\(what) is not supported in-process: it needs a separate process; launch the fleet with mode: .processes")
    }

    public var description: String { logs.isEmpty ? message : "\(message)\n\(logs)" }
}
