import Foundation
import HearthCore
import HearthProtocol
import Logging
import PostgresNIO

/// A connection of `PostgresStore` inside a transaction (or a read), as the engine's `StorageWriter`: each call is
/// one or more statements, blocking the store's queue until the server answered.
struct PostgresTransaction: StorageWriter {
    let connection: PostgresConnection
    let logger: Logger

    @discardableResult
    func execute(_ query: PostgresQuery) throws -> PostgresQueryResult {
        try connection.result(of: query, logger: logger)
    }

    func rows(_ query: PostgresQuery) throws -> [PostgresRow] { try execute(query).rows }

    /// How many rows a statement changed.
    func changes(_ query: PostgresQuery) throws -> Int { try execute(query).metadata.rows ?? 0 }

    /// Commits, and throws when the server rolled back instead (a statement failed outside any savepoint).
    func commit() throws {
        let tag = try execute("COMMIT").metadata.command
        guard tag == "COMMIT" else { throw PostgresStore.RolledBack(command: tag) }
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try execute("SAVEPOINT command")
        do {
            let result = try body()
            try execute("RELEASE SAVEPOINT command")
            return result
        } catch {
            // A failed statement aborted the transaction: rolling back to the savepoint makes it usable again.
            try execute("ROLLBACK TO SAVEPOINT command")
            try execute("RELEASE SAVEPOINT command")
            throw error
        }
    }

    static func milliseconds(_ date: Date) -> Int64 { BrokerStore.milliseconds(date) }

    static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    // MARK: questions and known handles

    func question(_ id: UUID) throws -> Stored.Question? {
        try rows("SELECT asked, resolution FROM question WHERE id = \(id)").first.map(Self.decodeQuestion)
    }

    func pendingQuestion(
        child: MemberID, app: BundleID, handles: [CommunicationHandle], now: Date
    ) throws -> Stored.Question? {
        let key = BrokerStore.handlesKey(handles)
        let now = Self.milliseconds(now)
        let found = try rows(
            """
            SELECT asked, resolution FROM question WHERE child_id = \(child) AND handles_key = \(key) AND status = 0
            AND (expires_at IS NULL OR expires_at > \(now)) ORDER BY n
            """)
        return try found.lazy.map(Self.decodeQuestion).first { $0.asked.appBundleID == app }
    }

    func pendingQuestions(child: MemberID) throws -> [Stored.Question] {
        try rows(
            """
            SELECT asked, resolution FROM question WHERE child_id = \(child) AND status = 0 ORDER BY asked_at, n
            """
        ).map(Self.decodeQuestion)
    }

    func expiredPendingQuestions(now: Date, limit: Int) throws -> [Stored.Question] {
        try rows(
            """
            SELECT asked, resolution FROM question WHERE status = 0 AND expires_at IS NOT NULL
            AND expires_at <= \(Self.milliseconds(now)) ORDER BY expires_at, n LIMIT \(limit)
            """
        ).map(Self.decodeQuestion)
    }

    func askCount(child: MemberID, since: Date, upTo limit: Int) throws -> Int {
        // Counting stops at the limit, as SQLite's does: only "below the limit or not" matters.
        try rows(
            """
            SELECT COUNT(*) FROM (SELECT 1 FROM question WHERE child_id = \(child)
            AND asked_at >= \(Self.milliseconds(since)) LIMIT \(limit)) AS asked
            """
        ).first?.decode(Int.self) ?? 0
    }

    func knownHandles(of child: MemberID, among handles: [CommunicationHandle]) throws -> [CommunicationHandle] {
        try handles.filter { handle in
            try !rows(
                """
                SELECT 1 FROM known_handle WHERE child_id = \(child) AND kind = \(Int(handle.kind.rawValue))
                AND value = \(handle.value)
                """
            ).isEmpty
        }
    }

    func insert(_ asked: AskedQuestion, resolution: Resolution?) throws {
        var w = WireWriter()
        w.askedQuestion(asked)
        let expires = asked.question.expirationDate.map(Self.milliseconds)
        try execute(
            """
            INSERT INTO question (id, child_id, handles_key, asked, expires_at, status, resolution, asked_at)
            VALUES (\(asked.question.id), \(asked.childMemberID), \(BrokerStore.handlesKey(asked.question.handles)),
            \(Data(w.bytes)), \(expires), \(resolution == nil ? 0 : 1), \(resolution.map(Self.encodeResolution)),
            \(Self.milliseconds(asked.askedAt)))
            """)
    }

    func resolve(_ id: UUID, with resolution: Resolution) throws {
        let encoded = Self.encodeResolution(resolution)
        try execute("UPDATE question SET status = 1, resolution = \(encoded) WHERE id = \(id)")
    }

    func addKnownHandles(
        _ handles: [CommunicationHandle], child: MemberID, question: UUID?
    ) throws -> [CommunicationHandle] {
        try handles.filter { handle in
            try changes(
                """
                INSERT INTO known_handle (child_id, kind, value, question_id)
                VALUES (\(child), \(Int(handle.kind.rawValue)), \(handle.value), \(question)) ON CONFLICT DO NOTHING
                """) > 0
        }
    }

    func removeKnownHandles(_ handles: [CommunicationHandle], child: MemberID) throws -> [CommunicationHandle] {
        try Array(Set(handles)).filter { handle in
            try changes(
                """
                DELETE FROM known_handle WHERE child_id = \(child) AND kind = \(Int(handle.kind.rawValue))
                AND value = \(handle.value)
                """) > 0
        }
    }

    // MARK: events

    func events(of member: MemberID, after: UInt64, limit: Int) throws -> [Event] {
        let found = try rows(
            """
            SELECT seq, body FROM event WHERE member_id = \(member) AND seq > \(Int64(clamping: after))
            ORDER BY seq LIMIT \(limit)
            """)
        var events: [Event] = []
        var bytes = 0
        for row in found {
            let (sequence, body) = try row.decode((Int64, Data).self)
            let (event, size) = BrokerStore.deliverableEvent(member: member, sequence: UInt64(sequence), body: body)
            bytes += size
            if bytes > Wire.maxReplyBodyBytes, !events.isEmpty { break }
            events.append(event)
        }
        return events
    }

    func appendEvent(_ event: Event, body: ArraySlice<UInt8>) throws {
        try execute(
            """
            INSERT INTO event (member_id, seq, body) VALUES (\(event.memberID), \(Int64(event.sequence)), \(Data(body)))
            """)
    }

    // MARK: coding

    static func decodeQuestion(_ row: PostgresRow) throws -> Stored.Question {
        let (askedData, resolutionData) = try row.decode((Data, Data?).self)
        var reader = WireReader(Array(askedData))
        let asked = try reader.askedQuestion()
        var resolution: Resolution?
        if let resolutionData {
            var reader = WireReader(Array(resolutionData))
            resolution = try reader.resolution()
        }
        return Stored.Question(asked: asked, resolution: resolution)
    }

    static func encodeResolution(_ resolution: Resolution) -> Data {
        var w = WireWriter()
        w.resolution(resolution)
        return Data(w.bytes)
    }
}

extension PostgresStore {
    /// The server rolled the transaction back at `COMMIT`: nothing of it was stored.
    struct RolledBack: Error, CustomStringConvertible {
        var command: String
        var description: String { "the transaction was rolled back at commit (\(command))" }
    }
}
