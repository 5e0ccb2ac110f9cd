import Foundation
public import HearthCore

extension WireReader {
    /// A parent's notification (docs/PROTOCOL.md §5.13), every field checked.
    public mutating func parentNotification(_ field: String = "notification") throws(WireError) -> ParentNotification {
        let id = try u64("\(field).id")
        let code = try u8("\(field).kind")
        guard let kind = ParentNotification.Kind(rawValue: code) else {
            throw .unknownEnumValue(field: "\(field).kind", value: UInt64(code))
        }
        let createdAt = try date("\(field).createdAt")
        let child = try identifier("\(field).childMemberID")
        let question = try optional("\(field).questionID") { (r: inout WireReader) throws(WireError) in
            try r.uuid("\(field).questionID")
        }
        let app = try optional("\(field).appBundleID") { (r: inout WireReader) throws(WireError) in
            try r.bundleID("\(field).appBundleID")
        }
        let by = try optional("\(field).answeredBy") { (r: inout WireReader) throws(WireError) in
            try r.identifier("\(field).answeredBy")
        }
        let choice = try optional("\(field).choiceID") { (r: inout WireReader) throws(WireError) in
            try r.string("\(field).choiceID", max: 64)
        }
        let text = try string("\(field).text", max: Wire.maxNotificationTextBytes)
        return ParentNotification(
            id: id, kind: kind, createdAt: createdAt, childMemberID: child, questionID: question, appBundleID: app,
            answeredBy: by, choiceID: choice, text: text)
    }
}
