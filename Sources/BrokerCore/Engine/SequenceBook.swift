public import HearthCore
import Synchronization

/// The head of every member's event log, shared by the engine (which advances it after each commit, once the commit's
/// events are queued for publishing) and the heartbeats (periodic, and the one greeting a new subscription).
public final class SequenceBook: Sendable {
    private let heads: Mutex<[MemberID: UInt64]>

    public init(_ heads: [MemberID: UInt64] = [:]) {
        self.heads = Mutex(heads)
    }

    public func head(of member: MemberID) -> UInt64 { heads.withLock { $0[member] ?? 0 } }

    public func snapshot() -> [MemberID: UInt64] { heads.withLock { $0 } }

    /// Sets these members' heads as read from the store (a partition taken over from another broker).
    func replace(_ exact: [MemberID: UInt64]) {
        heads.withLock { heads in heads.merge(exact) { _, stored in stored } }
    }

    func update(_ changes: [MemberID: UInt64]) {
        heads.withLock { heads in
            for (member, head) in changes where head > heads[member] ?? 0 { heads[member] = head }
        }
    }
}
