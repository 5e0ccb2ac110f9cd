package import HearthCore
import Synchronization

/// Members with a device that said `hello` without negotiating version 2 since the broker started: such a device
/// cannot read `eventBatch`, and a topic's frames reach every device of its member, so their events are published one
/// per frame (docs/PROTOCOL.md §6.3).
package final class SingleEventMembers: Sendable {
    private let members = Mutex<Set<MemberID>>([])

    package init() {}

    package func insert(_ member: MemberID) { members.withLock { _ = $0.insert(member) } }

    /// The members as they are now; a batch's publishing reads them once.
    package var all: Set<MemberID> { members.withLock { $0 } }
}
