import Foundation
public import HearthCore

extension WireWriter {
    /// A parent's notification (docs/PROTOCOL.md §5.13).
    public mutating func parentNotification(_ n: ParentNotification) {
        u64(n.id)
        u8(n.kind.rawValue)
        date(n.createdAt)
        string(n.childMemberID)
        optional(n.questionID) { $0.uuid($1) }
        optional(n.appBundleID) { $0.string($1) }
        optional(n.answeredBy) { $0.string($1) }
        optional(n.choiceID) { $0.string($1) }
        string(n.text)
    }
}
