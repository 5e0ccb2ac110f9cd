extension MessageCodec {
    /// The sequence number of an `event` frame (0x90), read without decoding the event, so a device can drop one it
    /// has already applied for the cost of a few bytes; nil for any other frame or one too short to hold it.
    public static func peekEventSequence(_ frame: [UInt8]) -> UInt64? {
        guard frame.count > Wire.headerSize, frame[1] == MessageType.event.rawValue else { return nil }
        var r = WireReader(frame, offset: Wire.headerSize)
        guard (try? r.string("event.memberID")) != nil else { return nil }
        return try? r.u64("event.sequence")
    }
}
