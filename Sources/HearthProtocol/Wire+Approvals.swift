import Foundation
public import HearthCore

/// The `approvedList` reply (0x8A) and its `Approval` records (docs/PROTOCOL.md §6.2).
extension WireWriter {
    public mutating func approval(_ a: Approval) {
        handle(a.handle)
        optional(a.questionID) { $0.uuid($1) }
        optional(a.approvedBy) { $0.string($1) }
        optional(a.approvedAt) { $0.date($1) }
        bool(a.inPerson)
    }
}

extension WireReader {
    public mutating func approval() throws(WireError) -> Approval {
        let handle = try handle("approval.handle")
        let question = try optional("approval.questionID") { (r: inout WireReader) throws(WireError) in
            try r.uuid("approval.questionID")
        }
        let by = try optional("approval.approvedBy") { (r: inout WireReader) throws(WireError) in
            try r.identifier("approval.approvedBy")
        }
        let at = try optional("approval.approvedAt") { (r: inout WireReader) throws(WireError) in
            try r.date("approval.approvedAt")
        }
        let inPerson = try bool("approval.inPerson")
        return Approval(handle: handle, questionID: question, approvedBy: by, approvedAt: at, inPerson: inPerson)
    }

    /// The body of `approvedList`.
    public mutating func approvedList() throws(WireError) -> Message {
        let child = try identifier("approvedList.childID")
        let approvals = try array("approvedList.approvals") { (r: inout WireReader) throws(WireError) in
            try r.approval()
        }
        return .approvedList(childID: child, approvals: approvals, complete: try bool("approvedList.complete"))
    }
}
