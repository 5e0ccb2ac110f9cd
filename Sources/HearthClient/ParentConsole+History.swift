public import Foundation
public import HearthCore
import HearthProtocol
import HearthTransport

extension ParentConsole {
    /// One page of a child's history as the broker recorded it, and the cursor of the next page (nil: the last). A
    /// refusal is thrown as `ErrorReply`: `notFound` for a child not of this parent's family, `notAuthorized` for a
    /// caller who is not a parent, `invalidCursor` for a cursor not from this child's history.
    public func history(_ query: HistoryQuery) async throws -> (entries: [HistoryEntry], next: UInt64?) {
        let reply = try await request(.history(query))
        guard case .historyPage(_, let entries, let next) = reply else {
            throw TransportError.unexpectedReply(peer: "parent-device", type: reply.typeCode)
        }
        return (entries, next)
    }

    /// A child's whole history (recorded at or after `since`), oldest first, fetched a page of `pageSize` at a time.
    public func history(
        of child: MemberID, since: Date? = nil, pageSize: UInt32 = HistoryQuery.maxLimit
    ) async throws -> [HistoryEntry] {
        var all: [HistoryEntry] = []
        var query = HistoryQuery(childID: child, limit: pageSize, since: since)
        while true {
            let (entries, next) = try await history(query)
            all += entries
            guard let next else { return all }
            query.cursor = next
        }
    }
}
