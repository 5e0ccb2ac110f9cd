package import HearthCore
import HearthProtocol

extension BrokerFrames {
    /// One frame on one member's topic.
    package struct Publication: Sendable {
        package var member: MemberID
        package var frame: [UInt8]

        package init(member: MemberID, frame: [UInt8]) {
            self.member = member
            self.frame = frame
        }
    }

    /// The frames publishing what one commit stored (`frames[i]` is `events[i]`'s `event` frame): each member's
    /// events in sequence order, a run of consecutive ones in one `eventBatch` frame (as many as fit in a frame, at
    /// most `Wire.maxEventsPerBatch`), so a member costs one message per commit instead of one per event. Members in
    /// `singles` get their `event` frames unchanged. Members come in the order of their first event.
    package static func publications(events: [Event], frames: [[UInt8]], singles: Set<MemberID>) -> [Publication] {
        if events.count < 2 { return zip(events, frames).map { Publication(member: $0.memberID, frame: $1) } }
        var order: [MemberID] = []
        var grouped: [[Int]] = []
        // One hash per event, and no copy of the events: only their members are read.
        var slot: [MemberID: Int] = [:]
        for index in events.indices {
            let member = events[index].memberID
            if let at = slot[member] {
                grouped[at].append(index)
            } else {
                slot[member] = grouped.count
                order.append(member)
                grouped.append([index])
            }
        }
        var out: [Publication] = []
        out.reserveCapacity(order.count)
        for (member, indexes) in zip(order, grouped) {
            if indexes.count == 1 || singles.contains(member) {
                for index in indexes { out.append(Publication(member: member, frame: frames[index])) }
                continue
            }
            for run in runs(indexes, events: events, frames: frames) {
                let frame =
                    run.count == 1
                    ? frames[run[0]] : MessageCodec.eventBatchFrame(bodies: run.map { frames[$0][Wire.headerSize...] })
                out.append(Publication(member: member, frame: frame))
            }
        }
        return out
    }

    /// `indexes` (one member's events, in order) cut into runs that one `eventBatch` may carry: consecutive sequence
    /// numbers, at most `Wire.maxEventsPerBatch` events, a frame of at most `Wire.maxFrameSize` bytes.
    private static func runs(_ indexes: [Int], events: [Event], frames: [[UInt8]]) -> [[Int]] {
        var runs: [[Int]] = []
        var run: [Int] = []
        var bytes = 0
        for index in indexes {
            let size = frames[index].count - Wire.headerSize
            if let last = run.last,
                run.count == Wire.maxEventsPerBatch
                    || MessageCodec.eventBatchBytes(bytes + size) > Wire.maxFrameSize
                    || events[index].sequence != events[last].sequence &+ 1
            {
                runs.append(run)
                run = []
                bytes = 0
            }
            run.append(index)
            bytes += size
        }
        if !run.isEmpty { runs.append(run) }
        return runs
    }
}
