import Foundation
public import GRDB
import HearthCore
import HearthProtocol

/// The member's open Ask First prompts on a device (events 0x11/0x12), in their wire encoding.
public struct AgePromptStore: Sendable {
    private let database: any DatabaseWriter

    /// The store in `database`, whose migrator ran `migrate`.
    public init(_ database: any DatabaseWriter) {
        self.database = database
    }

    /// Adds the prompts' table.
    public static func migrate(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("age-range-device-v1") { db in
            try db.execute(
                sql: "CREATE TABLE age_prompt (id BLOB PRIMARY KEY, prompt BLOB NOT NULL, created_at REAL NOT NULL)")
        }
    }

    /// Applies one age range event inside the transaction that records it as applied.
    static func apply(_ body: AgeRangeEvent, in db: Database) throws {
        switch body {
        case .promptOpened(let prompt):
            var w = WireWriter()
            w.agePrompt(prompt)
            try db.execute(
                sql: "INSERT OR IGNORE INTO age_prompt (id, prompt, created_at) VALUES (?, ?, ?)",
                arguments: [prompt.id.wireBytes, Data(w.bytes), prompt.createdAt.timeIntervalSince1970])
        case .promptClosed(let id, _, _):
            try db.execute(sql: "DELETE FROM age_prompt WHERE id = ?", arguments: [id.wireBytes])
        case .answerChanged:
            break
        }
    }

    /// The open prompts, oldest first.
    func prompts() async throws -> [AgePrompt] {
        try await database.read { db in
            try Data.fetchAll(db, sql: "SELECT prompt FROM age_prompt ORDER BY created_at").map { data in
                var r = WireReader(Array(data))
                return try r.agePrompt()
            }
        }
    }
}
