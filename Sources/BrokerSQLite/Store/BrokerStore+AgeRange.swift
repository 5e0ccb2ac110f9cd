import BrokerCore
import Foundation
import GRDB
import HearthCore
import HearthProtocol

extension BrokerStore {
    /// Declared Age Range tables: sharing settings, the answer remembered per (member, app), and Ask First prompts.
    static func registerAgeRangeMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("age-range-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE age_sharing (
                        member_id TEXT PRIMARY KEY, setting INTEGER NOT NULL, set_by TEXT NOT NULL, set_at INTEGER NOT NULL
                    ) WITHOUT ROWID;
                    CREATE TABLE age_cache (
                        member_id TEXT NOT NULL,
                        app TEXT NOT NULL,
                        first_day TEXT NOT NULL,
                        period_day TEXT NOT NULL,
                        gates TEXT NOT NULL,
                        answer BLOB NOT NULL,
                        next_review INTEGER NOT NULL,
                        PRIMARY KEY (member_id, app)
                    ) WITHOUT ROWID;
                    CREATE INDEX age_cache_review ON age_cache(next_review);
                    CREATE TABLE age_prompt (
                        id BLOB PRIMARY KEY,
                        member_id TEXT NOT NULL,
                        app TEXT NOT NULL,
                        prompt BLOB NOT NULL,
                        expires_at INTEGER NOT NULL,
                        status INTEGER NOT NULL
                    );
                    CREATE INDEX age_prompt_open ON age_prompt(expires_at) WHERE status = 0;
                    CREATE INDEX age_prompt_member ON age_prompt(member_id, app) WHERE status = 0;
                    """)
        }
    }

    typealias AgeCacheEntry = Stored.AgeCache
    typealias AgePromptStatus = Stored.PromptStatus

    static func ageSharing(of member: MemberID, in db: Database) throws -> AgeSharing? {
        try Int.fetchOne(db, sql: "SELECT setting FROM age_sharing WHERE member_id = ?", arguments: [member])
            .flatMap { AgeSharing(rawValue: UInt8(clamping: $0)) }
    }

    static func setAgeSharing(
        _ setting: AgeSharing, of member: MemberID, by: MemberID, at: Date, in db: Database
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO age_sharing (member_id, setting, set_by, set_at) VALUES (?, ?, ?, ?)
                ON CONFLICT(member_id) DO UPDATE SET setting = excluded.setting, set_by = excluded.set_by, set_at = excluded.set_at
                """,
            arguments: [member, Int(setting.rawValue), by, Stored.roundedMilliseconds(at)])
    }

    static func ageCache(_ member: MemberID, app: BundleID, in db: Database) throws -> AgeCacheEntry? {
        try Row.fetchOne(db, sql: "SELECT * FROM age_cache WHERE member_id = ? AND app = ?", arguments: [member, app])
            .map(decodeAgeCache)
    }

    static func ageCacheDue(at now: Date, in db: Database) throws -> [AgeCacheEntry] {
        try Row.fetchAll(
            db, sql: "SELECT * FROM age_cache WHERE next_review <= ? ORDER BY next_review LIMIT 500",
            arguments: [Stored.roundedMilliseconds(now)]
        )
        .map(decodeAgeCache)
    }

    static func saveAgeCache(_ entry: AgeCacheEntry, in db: Database) throws {
        var w = WireWriter()
        w.ageRangeAnswer(entry.answer)
        try db.execute(
            sql:
                "INSERT OR REPLACE INTO age_cache (member_id, app, first_day, period_day, gates, answer, next_review) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [
                entry.memberID, entry.app, entry.firstDay.description, entry.periodDay.description,
                entry.gates.map(String.init).joined(separator: ","), Data(w.bytes),
                Stored.roundedMilliseconds(entry.nextReview),
            ])
    }

    /// Forgets (member, app); true if there was something to forget.
    static func clearAgeCache(_ member: MemberID, app: BundleID, in db: Database) throws -> Bool {
        try db.execute(sql: "DELETE FROM age_cache WHERE member_id = ? AND app = ?", arguments: [member, app])
        return db.changesCount > 0
    }

    static func insertAgePrompt(_ prompt: AgePrompt, in db: Database) throws {
        var w = WireWriter()
        w.agePrompt(prompt)
        try db.execute(
            sql: "INSERT INTO age_prompt (id, member_id, app, prompt, expires_at, status) VALUES (?, ?, ?, ?, ?, 0)",
            arguments: [
                prompt.id.wireBytes, prompt.memberID, prompt.app, Data(w.bytes),
                Stored.roundedMilliseconds(prompt.expiresAt),
            ])
    }

    static func agePrompt(_ id: UUID, in db: Database) throws -> (prompt: AgePrompt, status: AgePromptStatus)? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT prompt, status FROM age_prompt WHERE id = ?", arguments: [id.wireBytes])
        else {
            return nil
        }
        return (try decodeAgePrompt(row[0]), AgePromptStatus(rawValue: row[1]) ?? .expired)
    }

    /// The open, unexpired prompts of (member, app).
    static func openAgePrompts(_ member: MemberID, app: BundleID, now: Date, in db: Database) throws -> [AgePrompt] {
        try Data.fetchAll(
            db, sql: "SELECT prompt FROM age_prompt WHERE member_id = ? AND app = ? AND status = 0 AND expires_at > ?",
            arguments: [member, app, Stored.roundedMilliseconds(now)]
        ).map(decodeAgePrompt)
    }

    static func expiredAgePrompts(at now: Date, in db: Database) throws -> [AgePrompt] {
        try Data.fetchAll(
            db, sql: "SELECT prompt FROM age_prompt WHERE status = 0 AND expires_at <= ? LIMIT 500",
            arguments: [Stored.roundedMilliseconds(now)]
        )
        .map(decodeAgePrompt)
    }

    static func closeAgePrompt(_ id: UUID, status: AgePromptStatus, in db: Database) throws {
        try db.execute(
            sql: "UPDATE age_prompt SET status = ? WHERE id = ?", arguments: [status.rawValue, id.wireBytes])
    }

    private static func decodeAgeCache(_ row: Row) throws -> AgeCacheEntry {
        let answerData: Data = row["answer"]
        var r = WireReader(Array(answerData))
        let gatesText: String = row["gates"]
        guard let first = BirthDate(row["first_day"] as String), let period = BirthDate(row["period_day"] as String)
        else {
            throw DatabaseError(message: "age_cache holds a malformed day")
        }
        return AgeCacheEntry(
            memberID: row["member_id"], app: row["app"], firstDay: first, periodDay: period,
            gates: gatesText.split(separator: ",").compactMap { Int($0) }, answer: try r.ageRangeAnswer(),
            nextReview: Date(timeIntervalSince1970: Double(row["next_review"] as Int64) / 1000))
    }

    private static func decodeAgePrompt(_ data: Data) throws -> AgePrompt {
        var r = WireReader(Array(data))
        return try r.agePrompt()
    }
}
