package import HearthCore
import HearthProtocol

extension BrokerFrames {
    /// `frames` (`frames[i]` publishes `events[i]`) as each member's devices read them. An event of a later
    /// protocol (`Event.peerVersion`: 3 for an age range with how the age was established or an acknowledged update,
    /// 4 for a decline in person) stays whole only on the topic of a member all of whose devices negotiated that
    /// version since the broker started (`readers(version, members)`, asked once per version with every member
    /// concerned), since a topic's frames reach every device of its member; the others get what a version 1 peer
    /// reads (`Event.forPeer`). The log keeps the event whole, and a sync's reply is cut to its own peer's version.
    package static func forReaders(
        events: [Event], frames: [[UInt8]], readers: (UInt8, Set<MemberID>) -> Set<MemberID>
    ) -> [[UInt8]] {
        let later = Dictionary(
            grouping: events.indices.filter { events[$0].peerVersion > Wire.minimumVersion },
            by: { events[$0].peerVersion })
        guard !later.isEmpty else { return frames }
        var out = frames
        for (version, indices) in later {
            let whole = readers(version, Set(indices.map { events[$0].memberID }))
            for index in indices where !whole.contains(events[index].memberID) {
                out[index] = events[index].forPeer(version: Wire.minimumVersion).publicationFrame().frame
            }
        }
        return out
    }
}
