#if PostgreSQL
import Foundation
import HearthCore
import PostgresNIO

/// A child's approved handles (`known_handle`), each with the question that approved it.
extension PostgresTransaction {
    func approvedHandles(of child: MemberID) throws -> [(handle: CommunicationHandle, question: UUID?)] {
        try rows(
            "SELECT kind, value, question_id FROM known_handle WHERE child_id = \(child) ORDER BY kind, value"
        ).compactMap { row in
            let (kind, value, question) = try row.decode((Int, String, UUID?).self)
            guard let kind = CommunicationHandle.Kind(rawValue: UInt8(clamping: kind)) else { return nil }
            return (CommunicationHandle(value: value, kind: kind), question)
        }
    }
}
#endif
