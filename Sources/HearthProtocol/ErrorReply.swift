/// A typed error sent in reply to a request.
public struct ErrorReply: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: ErrorCode
    /// Human-readable detail; never contains secrets.
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code) (\(code.rawValue)): \(message)" }
}
