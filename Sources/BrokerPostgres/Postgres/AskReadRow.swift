#if PostgreSQL
import BrokerCore
import Foundation
import HearthCore
import PostgresNIO

/// A row of an ask's reads (`HotStatements.AskReads`, or one of its six reads alone, which return the same columns):
/// which read it answers, then the columns of every read, NULL where the read has none.
struct AskReadRow {
    /// The read: 0 the question by id, 1 the ask count, 2 the settings, 3 contact flags, 4 known handles, 5 the
    /// pending question.
    var part: Int32
    /// The question's encoding (0, 5), or the settings (2).
    var blob: Data?
    var resolution: Data?
    /// The count (1), or the pending question's position (5).
    var number: Int64?
    var kind: Int32?
    var value: String?
    var downtime: Bool?

    init(_ row: PostgresRow) throws {
        (part, blob, resolution, number, kind, value, downtime) = try row.decode(
            (Int32, Data?, Data?, Int64?, Int32?, String?, Bool?).self)
    }

    /// The question of a row of part 0 or 5.
    func question() throws -> Stored.Question {
        guard let blob else { throw PostgresStore.UnexpectedRow(description: "a question row without its question") }
        return try PostgresTransaction.decodeQuestion(asked: blob, resolution: resolution)
    }

    /// The handle of a row of part 3 or 4, nil for a kind this broker does not know.
    var handle: CommunicationHandle? {
        guard let kind, let value, let known = CommunicationHandle.Kind(rawValue: UInt8(clamping: kind)) else {
            return nil
        }
        return CommunicationHandle(value: value, kind: known)
    }
}

extension PostgresStore {
    /// A row without a column its read always fills: the statement and the code disagree.
    struct UnexpectedRow: Error, CustomStringConvertible {
        var description: String
    }
}
#endif
