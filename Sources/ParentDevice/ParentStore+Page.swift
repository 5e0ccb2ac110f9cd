import Foundation
import GRDB
import HearthCore
import HearthProtocol

extension ParentStore {
    /// How many questions wait, however many the page has room for.
    func pendingCount() async throws -> Int {
        try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pending") ?? 0 }
    }

    /// The waiting question `id`, with its people's avatars and names as the broker delivered them; nil when it does
    /// not wait here.
    func pendingQuestion(_ id: UUID) async throws -> AskedQuestion? {
        try await database.read { db in
            let sql = "SELECT asked FROM pending WHERE question_id = ?"
            guard let data = try Data.fetchOne(db, sql: sql, arguments: [id.wireBytes]) else { return nil }
            var r = WireReader(Array(data))
            return try r.askedQuestion()
        }
    }
}
