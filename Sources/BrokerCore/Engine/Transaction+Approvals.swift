import Foundation
import HearthCore
import HearthProtocol

/// The handles approved for a child, with who approved each and when: what a parent reviews and revokes from.
extension Transaction {
    func approvedList(of childID: MemberID, caller: Directory.Member) throws -> BrokerReply {
        let child = try childForSettings(childID, caller: caller, allowSelf: false)
        var approvals: [Approval] = []
        var bytes = 0
        for (handle, questionID) in try store.approvedHandles(of: child.id) {
            let resolution = try questionID.flatMap { try store.question($0)?.resolution }
            let approval = Approval(
                handle: handle, questionID: questionID, approvedBy: resolution?.answeredBy,
                approvedAt: resolution?.resolvedAt, inPerson: resolution?.reason == .approvedInPerson)
            var w = WireWriter()
            w.approval(approval)
            // As many as fit in one frame; the reply says whether that is all of them.
            guard bytes + w.bytes.count <= Wire.maxReplyBodyBytes else {
                return .approvedList(childID: child.id, approvals, complete: false)
            }
            bytes += w.bytes.count
            approvals.append(approval)
        }
        return .approvedList(childID: child.id, approvals, complete: true)
    }
}
