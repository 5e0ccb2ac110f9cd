#if PostgreSQL
import Foundation
import HearthCore
import NIOCore
import PostgresNIO

/// Resolutions made in a write transaction of a partition's owner and not sent yet, with the handles each approved
/// (which are new is known from the owner cache): sent together with the other held rows, as one statement
/// (`HotStatements.ResolveHeld`) before the next statement or the commit. A transaction of N answers then sends one
/// statement for them, where it sent N.
struct HeldResolutions {
    private var ids: [String] = []
    private var encoded: [ByteBuffer] = []
    /// Where each resolution's approved handles begin in the handle columns (to cut back a command's).
    private var handlesStart: [Int] = []
    private var children: [String] = []
    private var kinds: [Int32] = []
    private var values: [String] = []
    private var questions: [String] = []

    var isEmpty: Bool { ids.isEmpty }
    var count: Int { ids.count }

    mutating func append(_ id: UUID, resolution: Data, child: MemberID, approving handles: [CommunicationHandle]) {
        ids.append(id.uuidString)
        encoded.append(ByteBuffer(bytes: resolution))
        handlesStart.append(children.count)
        for handle in handles {
            children.append(child)
            kinds.append(Int32(handle.kind.rawValue))
            values.append(handle.value)
            questions.append(id.uuidString)
        }
    }

    /// Forgets the resolutions after the first `count` (those of a command that failed).
    mutating func truncate(to count: Int) {
        guard count < ids.count else { return }
        let handles = handlesStart[count]
        ids.removeSubrange(count...)
        encoded.removeSubrange(count...)
        handlesStart.removeSubrange(count...)
        children.removeSubrange(handles...)
        kinds.removeSubrange(handles...)
        values.removeSubrange(handles...)
        questions.removeSubrange(handles...)
    }

    /// `HotStatements.ResolveHeld`'s parameters.
    var bindings: PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(ids)
        bindings.append(encoded)
        bindings.append(children)
        bindings.append(kinds)
        bindings.append(values)
        bindings.append(questions)
        return bindings
    }
}
#endif
