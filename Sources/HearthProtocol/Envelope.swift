/// A decoded frame: the request id that correlates a reply with its request, and the message.
public struct Envelope: Sendable, Hashable {
    /// Chosen by the requester; echoed in the reply. 0 for events and pushes.
    public var requestID: UInt64
    public var message: Message

    public init(requestID: UInt64, message: Message) {
        self.requestID = requestID
        self.message = message
    }
}
