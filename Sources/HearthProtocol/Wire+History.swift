import Foundation
public import HearthCore

/// A child's history (docs/PROTOCOL.md §5.14): the `history` command (0x0F), its `historyPage` reply (0x8B) and
/// the `historyRecorded` event (kind 6) carry `HistoryEntry` records.
extension WireWriter {
    /// An entry: its id, then `historyEntryBody`.
    public mutating func historyEntry(_ e: HistoryEntry) {
        u64(e.id)
        historyEntryBody(e)
    }

    /// Every field of an entry but its id: the broker's stored form, the id being the row's.
    public mutating func historyEntryBody(_ e: HistoryEntry) {
        string(e.childMemberID)
        date(e.recordedAt)
        u8(e.kind.rawValue)
        optional(e.actor) { $0.string($1) }
        optional(e.deviceID) { $0.string($1) }
        optional(e.questionID) { $0.uuid($1) }
        optional(e.appBundleID) { $0.string($1) }
        optional(e.choice) { $0.choice($1) }
        optional(e.message) { $0.string($1) }
        array(e.handles) { $0.handle($1) }
        string(e.summary)
    }

    /// The body of `history`.
    public mutating func historyQuery(_ q: HistoryQuery) {
        string(q.childID)
        u64(q.cursor)
        u32(q.limit)
        bool(q.newestFirst)
        optional(q.since) { $0.date($1) }
    }
}

extension WireReader {
    /// An entry: its id, then its body.
    public mutating func historyEntry() throws(WireError) -> HistoryEntry {
        let id = try u64("entry.id")
        return try historyEntryBody(id: id)
    }

    /// An entry's fields after its id, every one checked.
    public mutating func historyEntryBody(id: UInt64) throws(WireError) -> HistoryEntry {
        let child = try identifier("entry.childMemberID")
        let at = try date("entry.recordedAt")
        let code = try u8("entry.kind")
        guard let kind = HistoryEntry.Kind(rawValue: code) else {
            throw .unknownEnumValue(field: "entry.kind", value: UInt64(code))
        }
        let actor = try optional("entry.actor") { (r: inout WireReader) throws(WireError) in
            try r.identifier("entry.actor")
        }
        let device = try optional("entry.deviceID") { (r: inout WireReader) throws(WireError) in
            try r.identifier("entry.deviceID")
        }
        let question = try optional("entry.questionID") { (r: inout WireReader) throws(WireError) in
            try r.uuid("entry.questionID")
        }
        let app = try optional("entry.appBundleID") { (r: inout WireReader) throws(WireError) in
            try r.bundleID("entry.appBundleID")
        }
        let choice = try optional("entry.choice") { (r: inout WireReader) throws(WireError) in try r.choice() }
        let message = try optional("entry.message") { (r: inout WireReader) throws(WireError) in
            try r.string("entry.message")
        }
        let handles = try array("entry.handles", max: HistoryEntry.maxHandles) {
            (r: inout WireReader) throws(WireError) in try r.handle("entry.handle")
        }
        var entry = HistoryEntry(
            id: id, childMemberID: child, recordedAt: at, kind: kind, actor: actor, deviceID: device,
            questionID: question, appBundleID: app, choice: choice, message: message, handles: handles, summary: "")
        // Not through the initializer's clipping: what was sent is what is read, within the wire's cap.
        entry.summary = try string("entry.summary", max: HistoryEntry.maxSummaryBytes)
        return entry
    }

    /// The body of `history`.
    public mutating func historyQuery() throws(WireError) -> HistoryQuery {
        let child = try identifier("history.childID")
        let cursor = try u64("history.cursor")
        let limit = try u32("history.limit")
        let newestFirst = try bool("history.newestFirst")
        let since = try optional("history.since") { (r: inout WireReader) throws(WireError) in
            try r.date("history.since")
        }
        return HistoryQuery(childID: child, cursor: cursor, limit: limit, newestFirst: newestFirst, since: since)
    }

    /// The body of `historyPage`.
    public mutating func historyPage() throws(WireError) -> Message {
        let child = try identifier("historyPage.childID")
        let entries = try array("historyPage.entries", max: Int(HistoryQuery.maxLimit)) {
            (r: inout WireReader) throws(WireError) in try r.historyEntry()
        }
        let next = try optional("historyPage.next") { (r: inout WireReader) throws(WireError) in
            try r.u64("historyPage.next")
        }
        return .historyPage(childID: child, entries: entries, next: next)
    }
}
