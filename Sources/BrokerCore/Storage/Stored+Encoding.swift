package import Foundation
package import HearthCore
import HearthProtocol

/// How either store writes a record's fields into its columns: the same bytes and numbers in SQLite's tables and
/// PostgreSQL's, so a record reads back alike from both and neither store needs the other's code.
extension Stored {
    /// The column that finds a child's question by the handles it names: the same key whatever their order or repeats.
    package static func handlesKey(_ handles: [CommunicationHandle]) -> String {
        func part(_ handle: CommunicationHandle) -> String { "\(handle.kind.rawValue):\(handle.value)" }
        // One handle, as an ask usually names: the same key without a set, a sort and a join.
        if handles.count == 1 { return part(handles[0]) }
        return Set(handles.map(part)).sorted().joined(separator: "\n")
    }

    /// A time as the stores keep it: milliseconds since 1970, truncated.
    package static func milliseconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    /// A time of the age range's tables (sharing, reviews, prompts): milliseconds since 1970, rounded.
    package static func roundedMilliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// A stored event as a device may be sent it, with its encoded size: trimmed when over the frame's limit, and an
    /// omitted event in its place when the stored bytes cannot be read, so one bad row does not stop delivery.
    package static func deliverableEvent(member: MemberID, sequence: UInt64, body data: Data) -> (Event, Int) {
        var reader = WireReader(Array(data))
        do {
            let stored = try reader.event()
            guard reader.remaining == 0 else { throw WireError.trailingBytes(count: reader.remaining) }
            if data.count <= Wire.maxEventBytes { return (stored, data.count) }
            let (event, body) = stored.deliverable()
            return (event, body.count)
        } catch {
            let reason = "the stored event could not be read: \(error)"
            let (event, body) = Event.omitted(
                member: member, sequence: sequence, createdAt: Date(), kind: 0, reason: reason)
            return (event, body.count)
        }
    }

    /// A stored history entry: the row's id, then the stored fields.
    package static func historyEntry(id: Int64, body: Data) throws -> HistoryEntry {
        var reader = WireReader(Array(body))
        let entry = try reader.historyEntryBody(id: UInt64(id))
        try reader.finish()
        return entry
    }

    /// A history entry's fields as stored (its id is the row's).
    package static func encodedHistoryBody(_ entry: HistoryEntry) -> Data {
        var w = WireWriter()
        w.historyEntryBody(entry)
        return Data(w.bytes)
    }
}
