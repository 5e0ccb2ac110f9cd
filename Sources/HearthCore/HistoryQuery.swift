public import Foundation

/// A page of a child's history asked of the broker (`history`, docs/PROTOCOL.md §6.1): oldest first from the start
/// or after a cursor, or newest first from the newest or before a cursor, optionally only what was recorded at or
/// after `since`.
public struct HistoryQuery: Hashable, Sendable {
    public var childID: MemberID
    /// The id of the last entry of the previous page (its `next`); 0 for the first page.
    public var cursor: UInt64
    /// Most entries in the page; the broker clamps it to 1…`maxLimit` and to what fits in one frame.
    public var limit: UInt32
    /// Newest first (a page, then the older ones); else oldest first.
    public var newestFirst: Bool
    /// Only entries recorded at or after this moment.
    public var since: Date?

    public init(
        childID: MemberID, cursor: UInt64 = 0, limit: UInt32 = HistoryQuery.maxLimit, newestFirst: Bool = false,
        since: Date? = nil
    ) {
        self.childID = childID
        self.cursor = cursor
        self.limit = limit
        self.newestFirst = newestFirst
        self.since = since
    }

    /// Most entries one page holds.
    public static let maxLimit: UInt32 = 1000
}
