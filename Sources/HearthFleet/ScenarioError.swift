/// Why a scenario file cannot run: it says where (file, step) and what to write instead.
public struct ScenarioError: Error, CustomStringConvertible, Sendable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
