import Foundation
import GRDB
import HearthCore
import HearthProtocol

/// The child's questions waiting at the broker, as the child's event log tells them: what `listPending` answers on
/// child-device, so that a person can name a question by a prefix of its id (`hearthctl app withdraw`,
/// `hearthctl child approve-in-person`).
extension ChildStore {
    /// Records `asked` as waiting, unless it was resolved already (its events may come in either order).
    static func markWaiting(_ asked: AskedQuestion, in db: Database) throws {
        var w = WireWriter()
        w.askedQuestion(asked)
        try db.execute(
            sql: "INSERT OR IGNORE INTO waiting (question_id, asked, asked_at) VALUES (?, ?, ?)",
            arguments: [asked.question.id.wireBytes, Data(w.bytes), asked.askedAt.timeIntervalSince1970])
    }

    /// Marks question `id` resolved: it waits no more, and a pending event coming after this does not bring it back.
    static func settle(_ id: UUID, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO waiting (question_id, asked, asked_at, resolved) VALUES (?, x'', 0, 1)
                ON CONFLICT (question_id) DO UPDATE SET asked = x'', resolved = 1
                """,
            arguments: [id.wireBytes])
    }

    /// Takes `asked`, which the broker just accepted, out of the outbox and records it as waiting (unless its
    /// resolution came first).
    func accepted(_ asked: AskedQuestion) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM outbox WHERE question_id = ?", arguments: [asked.question.id.wireBytes])
            try Self.markWaiting(asked, in: db)
        }
    }

    /// The waiting questions, oldest first, as many as fit in `maxBytes` of encoded questions (always the oldest).
    func waiting(maxBytes: Int) async throws -> [AskedQuestion] {
        try await database.read { db in
            var list: [AskedQuestion] = []
            var bytes = 0
            let sql = "SELECT asked FROM waiting WHERE resolved = 0 ORDER BY asked_at"
            let rows = try Data.fetchCursor(db, sql: sql)
            while let data = try rows.next() {
                bytes += data.count
                if bytes > maxBytes, !list.isEmpty { break }
                var reader = WireReader(Array(data))
                if let asked = try? reader.askedQuestion() { list.append(asked) }
            }
            return list
        }
    }
}
