import Foundation
import GRDB
import HearthCore

/// A child's approved handles (both parts: `BrokerStore+KnownHandles`), each with the question that approved it.
extension SQLiteTransaction {
    func approvedHandles(of child: MemberID) throws -> [(handle: CommunicationHandle, question: UUID?)] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT kind, value, question_id FROM known_handle WHERE child_id = ?1
                UNION ALL SELECT kind, value, question_id FROM known_handle_recent WHERE child_id = ?1
                ORDER BY 1, 2
                """,
            arguments: [child]
        ).compactMap { row in
            guard let kind = CommunicationHandle.Kind(rawValue: UInt8(clamping: row[0] as Int64)) else { return nil }
            return (CommunicationHandle(value: row[1], kind: kind), BrokerStore.uuid(row[2]))
        }
    }
}
