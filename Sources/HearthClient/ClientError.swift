/// Why a console or probe could not do what it was asked: no reply, nothing arrived in time, a bad address, or a
/// value that breaks a rule before it is sent (then `field` names it).
public struct ClientError: Error, CustomStringConvertible, Sendable {
    public var message: String
    /// The wire name of the field whose value broke a rule (e.g. `answer.message`); nil for other failures.
    public var field: String?

    public init(_ message: String) { self.message = message }

    /// A value of `field` that breaks a rule; nothing was sent.
    public init(field: String, reason: String) {
        self.message = "\(field): \(reason)"
        self.field = field
    }

    public var description: String { message }
}
