import HearthCore
import HearthProtocol

extension BrokerFrames {
    /// `frames` (`frames[i]` publishes `events[i]`) as each member's devices read them. An event of a later version
    /// (`Event.peerVersion`: an age range with how the age was established, an acknowledged update) stays whole only
    /// on the topic of a member all of whose devices negotiated that version since the broker started (`reads`),
    /// since a topic's frames reach every device of its member; the others get what a version 1 peer reads
    /// (`Event.forPeer`). The log keeps the event whole, and a sync's reply is cut to its own peer's version.
    static func forReaders(
        events: [Event], frames: [[UInt8]], reads: (MemberID, UInt8) -> Bool
    ) -> [[UInt8]] {
        guard events.contains(where: { $0.peerVersion > Wire.minimumVersion }) else { return frames }
        var out = frames
        var known: [MemberID: Bool] = [:]
        for (index, event) in events.enumerated() where event.peerVersion > Wire.minimumVersion {
            let member = event.memberID
            // Every later version is 3 today: one answer per member.
            let whole = known[member] ?? reads(member, event.peerVersion)
            known[member] = whole
            if !whole { out[index] = self.event(event.forPeer(version: Wire.minimumVersion)).frame }
        }
        return out
    }
}
