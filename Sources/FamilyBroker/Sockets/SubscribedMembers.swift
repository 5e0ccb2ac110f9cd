import HearthCore
import Synchronization

/// Members with at least one granted subscription since start: who gets heartbeats.
final class SubscribedMembers: Sendable {
    private let members = Mutex<Set<MemberID>>([])

    func insert(_ member: MemberID) { members.withLock { _ = $0.insert(member) } }

    var all: Set<MemberID> { members.withLock { $0 } }
}
