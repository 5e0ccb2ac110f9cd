import HearthCore
import HearthProtocol

extension BrokerFrames {
    /// `frames` (`frames[i]` publishes `events[i]`) as each member's devices read them. An event of protocol 3
    /// (`Event.peerVersion`: an age range with how the age was established, an acknowledged update) stays whole only
    /// on the topic of a member all of whose devices negotiated 3 since the broker started (`readers`, asked once with
    /// every member concerned), since a topic's frames reach every device of its member; the others get what a
    /// version 1 peer reads (`Event.forPeer`). The log keeps the event whole, and a sync's reply is cut to its own
    /// peer's version.
    static func forReaders(
        events: [Event], frames: [[UInt8]], readers: (Set<MemberID>) -> Set<MemberID>
    ) -> [[UInt8]] {
        let later = events.indices.filter { events[$0].peerVersion > Wire.minimumVersion }
        guard !later.isEmpty else { return frames }
        let whole = readers(Set(later.map { events[$0].memberID }))
        var out = frames
        for index in later where !whole.contains(events[index].memberID) {
            out[index] = events[index].forPeer(version: Wire.minimumVersion).publicationFrame().frame
        }
        return out
    }
}
