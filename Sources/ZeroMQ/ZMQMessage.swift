/// One whole multipart message.
public struct ZMQMessage: Sendable, Equatable {
    /// The frames, in order.
    public var frames: [[UInt8]]
    /// The ZAP-assigned `User-Id` of the sending peer, or nil when no ZAP handler set one.
    public var userId: String?
    /// Frames past the reader's limit (`ZMQSocket.receive(dontWait:maxFrames:)`), read and freed without being copied.
    public var discardedFrames: Int
    /// The descriptor of the connection the message came in on (`ZMQ_SRCFD`), -1 when unknown: to drop that one peer
    /// (`ZMQSocket.dropPeer(descriptor:)`).
    public var sourceDescriptor: Int32

    /// Creates a message from frames and an optional ZAP user id.
    public init(frames: [[UInt8]], userId: String? = nil, discardedFrames: Int = 0, sourceDescriptor: Int32 = -1) {
        self.frames = frames
        self.userId = userId
        self.discardedFrames = discardedFrames
        self.sourceDescriptor = sourceDescriptor
    }

    /// Messages are equal by what they carry; where they came from is not part of it.
    public static func == (lhs: ZMQMessage, rhs: ZMQMessage) -> Bool {
        lhs.frames == rhs.frames && lhs.userId == rhs.userId && lhs.discardedFrames == rhs.discardedFrames
    }
}
