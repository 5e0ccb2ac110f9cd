public import HearthCore

extension Event {
    /// This event as it can be delivered (`deliverable()`: trimmed or omitted when too large) and the frame that
    /// publishes it on its member's topic. The broker's transaction stores and publishes from this one encoding.
    public func publicationFrame() -> (event: Event, frame: [UInt8]) {
        let (delivered, body) = deliverable()
        return (delivered, MessageCodec.eventFrame(body: body))
    }

    /// The event's encoding inside its publication frame, as an event log keeps it.
    public static func storedBody(ofFrame frame: [UInt8]) -> ArraySlice<UInt8> { frame[Wire.headerSize...] }
}
