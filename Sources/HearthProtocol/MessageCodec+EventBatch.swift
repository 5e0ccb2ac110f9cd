extension MessageCodec {
    /// The `eventBatch` frame (request id 0) carrying `bodies`, already encoded events of one member in sequence
    /// order: what the broker publishes without decoding or encoding an event again. The caller keeps the frame within
    /// `Wire.maxFrameSize` (`eventBatchBytes`) and the count within `Wire.maxEventsPerBatch`.
    public static func eventBatchFrame<Body: Collection<UInt8>>(bodies: [Body]) -> [UInt8] {
        var w = publicationHeader(.eventBatch, capacity: eventBatchBytes(bodies.reduce(0) { $0 + $1.count }))
        w.u32(UInt32(bodies.count))
        for body in bodies { w.raw(body) }
        return w.bytes
    }

    /// A pub/sub frame's header: the version byte, `type`, request id 0.
    static func publicationHeader(_ type: MessageType, capacity: Int) -> WireWriter {
        var w = WireWriter(capacity: capacity)
        w.u8(Wire.version)
        w.u8(type.rawValue)
        w.u64(0)
        return w
    }

    /// The size of an `eventBatch` frame whose encoded events total `eventBytes`.
    public static func eventBatchBytes(_ eventBytes: Int) -> Int { Wire.headerSize + 4 + eventBytes }

    /// The highest sequence number in an `event` or `eventBatch` frame, read without decoding an event body, so a
    /// device can drop what it has already applied for the cost of a few bytes; nil for any other frame or one too
    /// short. A batch's events are consecutive (`WireReader.eventBatch`): its highest is its first plus its count
    /// minus one; a batch whose events are not is refused when decoded.
    public static func peekHighestSequence(_ frame: [UInt8]) -> UInt64? {
        guard frame.count > Wire.headerSize else { return nil }
        if frame[1] == MessageType.event.rawValue { return peekEventSequence(frame) }
        guard frame[1] == MessageType.eventBatch.rawValue else { return nil }
        var r = WireReader(frame, offset: Wire.headerSize)
        guard let count = try? r.u32("eventBatch.events"), count > 0,
            (try? r.string("event.memberID")) != nil, let first = try? r.u64("event.sequence")
        else { return nil }
        let (last, overflow) = first.addingReportingOverflow(UInt64(count) - 1)
        return overflow ? nil : last
    }
}
