public import HearthCore

extension WireReader {
    /// The events of an `eventBatch` (0x92): 1 to `Wire.maxEventsPerBatch` events of one member, each numbered one
    /// above the one before it. A device applies them as it would the same events in `event` frames, so a batch that
    /// breaks these rules is refused whole rather than partly applied.
    public mutating func eventBatch() throws(WireError) -> [Event] {
        let events = try array("eventBatch.events", max: Wire.maxEventsPerBatch) {
            (r: inout WireReader) throws(WireError) in try r.event()
        }
        guard let first = events.first else {
            throw .invalidValue(field: "eventBatch.events", reason: "must hold at least one event")
        }
        for index in events.indices.dropFirst() {
            let event = events[index]
            guard event.memberID == first.memberID else {
                throw .invalidValue(
                    field: "eventBatch.events[\(index)].memberID", reason: "must be the first event's member")
            }
            let previous = events[index - 1].sequence
            guard previous < .max, event.sequence == previous + 1 else {
                throw .invalidValue(
                    field: "eventBatch.events[\(index)].sequence", reason: "must be \(previous) + 1")
            }
        }
        return events
    }
}
