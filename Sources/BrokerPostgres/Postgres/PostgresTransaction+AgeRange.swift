#if PostgreSQL
import BrokerCore
import Foundation
import HearthCore
import HearthProtocol
import PostgresNIO

/// Declared Age Range: sharing settings, the answer remembered per (member, app), and Ask First prompts.
extension PostgresTransaction {
    static func ms(_ date: Date) -> Int64 { Stored.roundedMilliseconds(date) }

    func ageSharing(of member: MemberID) throws -> AgeSharing? {
        try rows("SELECT setting FROM age_sharing WHERE member_id = \(member)").first
            .flatMap { AgeSharing(rawValue: UInt8(clamping: try $0.decode(Int.self))) }
    }

    func setAgeSharing(_ setting: AgeSharing, of member: MemberID, by: MemberID, at: Date) throws {
        try post(
            """
            INSERT INTO age_sharing (member_id, setting, set_by, set_at)
            VALUES (\(member), \(Int(setting.rawValue)), \(by), \(Self.ms(at)))
            ON CONFLICT (member_id) DO UPDATE SET setting = excluded.setting, set_by = excluded.set_by,
            set_at = excluded.set_at
            """)
    }

    func ageCache(_ member: MemberID, app: BundleID) throws -> Stored.AgeCache? {
        try rows(
            """
            SELECT member_id, app, first_day, period_day, gates, answer, next_review FROM age_cache
            WHERE member_id = \(member) AND app = \(app)
            """
        ).first.map(Self.decodeAgeCache)
    }

    func ageCacheDue(at now: Date) throws -> [Stored.AgeCache] {
        try rows(
            """
            SELECT member_id, app, first_day, period_day, gates, answer, next_review FROM age_cache
            WHERE next_review <= \(Self.ms(now)) ORDER BY next_review LIMIT 500
            """
        ).map(Self.decodeAgeCache)
    }

    func saveAgeCache(_ entry: Stored.AgeCache) throws {
        var w = WireWriter()
        w.ageRangeAnswer(entry.answer)
        let gates = entry.gates.map(String.init).joined(separator: ",")
        try post(
            """
            INSERT INTO age_cache (member_id, app, first_day, period_day, gates, answer, next_review)
            VALUES (\(entry.memberID), \(entry.app), \(entry.firstDay.description), \(entry.periodDay.description),
            \(gates), \(Data(w.bytes)), \(Self.ms(entry.nextReview)))
            ON CONFLICT (member_id, app) DO UPDATE SET first_day = excluded.first_day,
            period_day = excluded.period_day, gates = excluded.gates, answer = excluded.answer,
            next_review = excluded.next_review
            """)
    }

    func clearAgeCache(_ member: MemberID, app: BundleID) throws -> Bool {
        try changes("DELETE FROM age_cache WHERE member_id = \(member) AND app = \(app)") > 0
    }

    func insertAgePrompt(_ prompt: AgePrompt) throws {
        var w = WireWriter()
        w.agePrompt(prompt)
        try post(
            """
            INSERT INTO age_prompt (id, member_id, app, prompt, expires_at, status)
            VALUES (\(prompt.id), \(prompt.memberID), \(prompt.app), \(Data(w.bytes)), \(Self.ms(prompt.expiresAt)), 0)
            """)
    }

    func agePrompt(_ id: UUID) throws -> (prompt: AgePrompt, status: Stored.PromptStatus)? {
        guard let row = try rows("SELECT prompt, status FROM age_prompt WHERE id = \(id)").first else { return nil }
        let (data, status) = try row.decode((Data, Int).self)
        return (try Self.decodeAgePrompt(data), Stored.PromptStatus(rawValue: status) ?? .expired)
    }

    func openAgePrompts(_ member: MemberID, app: BundleID, now: Date) throws -> [AgePrompt] {
        try rows(
            """
            SELECT prompt FROM age_prompt WHERE member_id = \(member) AND app = \(app) AND status = 0
            AND expires_at > \(Self.ms(now))
            """
        ).map { try Self.decodeAgePrompt($0.decode(Data.self)) }
    }

    func expiredAgePrompts(at now: Date) throws -> [AgePrompt] {
        try rows(
            """
            SELECT prompt FROM age_prompt WHERE status = 0 AND expires_at <= \(Self.ms(now))
            ORDER BY expires_at LIMIT 500
            """
        ).map { try Self.decodeAgePrompt($0.decode(Data.self)) }
    }

    func closeAgePrompt(_ id: UUID, status: Stored.PromptStatus) throws {
        try post("UPDATE age_prompt SET status = \(status.rawValue) WHERE id = \(id)")
    }

    /// Columns: member_id, app, first_day, period_day, gates, answer, next_review.
    static func decodeAgeCache(_ row: PostgresRow) throws -> Stored.AgeCache {
        let (member, app, first, period, gates, answer, review) =
            try row.decode((String, String, String, String, String, Data, Int64).self)
        guard let firstDay = BirthDate(first), let periodDay = BirthDate(period) else {
            throw PostgresStore.Malformed(description: "age_cache holds a malformed day")
        }
        var reader = WireReader(Array(answer))
        return Stored.AgeCache(
            memberID: member, app: app, firstDay: firstDay, periodDay: periodDay,
            gates: gates.split(separator: ",").compactMap { Int($0) }, answer: try reader.ageRangeAnswer(),
            nextReview: date(milliseconds: review))
    }

    static func decodeAgePrompt(_ data: Data) throws -> AgePrompt {
        var reader = WireReader(Array(data))
        return try reader.agePrompt()
    }
}

extension PostgresStore {
    /// A stored row this broker cannot read.
    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }
}
#endif
