/// Why a console or probe could not do what it was asked: no reply, nothing arrived in time, a bad address.
public struct ClientError: Error, CustomStringConvertible, Sendable {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
