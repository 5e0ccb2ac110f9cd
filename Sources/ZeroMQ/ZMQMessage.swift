/// One whole multipart message.
public struct ZMQMessage: Sendable, Equatable {
    /// The frames, in order.
    public var frames: [[UInt8]]
    /// The ZAP-assigned `User-Id` of the sending peer, or nil when no ZAP handler set one.
    public var userId: String?

    /// Creates a message from frames and an optional ZAP user id.
    public init(frames: [[UInt8]], userId: String? = nil) {
        self.frames = frames
        self.userId = userId
    }
}
