#if PostgreSQL
import BrokerCore
import Foundation
import HearthCore
import HearthProtocol
import Logging
import PostgresNIO

/// A connection of `PostgresStore` inside a transaction (or a read), as the engine's `StorageWriter`. Each statement
/// is a round trip, so a write transaction sends as few as it can and waits for fewer still (`HeldWrites`): a
/// command's savepoint only once it writes, its events in one insert, and writes whose result it does not need sent
/// without waiting (`post`), their outcome checked at the next statement it waits for and when the command ends.
struct PostgresTransaction: StorageWriter {
    let connection: PostgresConnection
    let logger: Logger
    /// What this transaction has not sent or not waited for yet (a read's stays empty).
    let held = HeldWrites()
    /// The owner's rows in memory (a write transaction of a cluster's broker): reads it answers are not sent.
    var cache: OwnerCache?

    /// Runs a statement as it is, apart from held writes and savepoints: transaction control.
    @discardableResult
    func execute(_ query: PostgresQuery) throws -> PostgresQueryResult {
        sendHeldQuestions()
        held.forgetAhead()
        held.statements += 1
        held.waits += 1
        return try connection.result(of: query, logger: logger)
    }

    /// Runs a query that only reads. It sees every write sent before it, but not the events held: a query of
    /// `event` calls `flush` first.
    func rows(_ query: PostgresQuery) throws -> [PostgresRow] {
        try waited(query).rows
    }

    /// Runs a hot statement that only reads, as `rows(_:)` a query.
    func rows(_ statement: some HotStatement) throws -> [PostgresRow] {
        try waited(statement)
    }

    /// Runs a statement that writes and waits for its result, in the current command's savepoint.
    @discardableResult
    func write(_ query: PostgresQuery) throws -> PostgresQueryResult {
        openSavepoint()
        return try waited(query)
    }

    /// Sends a statement that writes, in the current command's savepoint, without waiting for it.
    func post(_ query: PostgresQuery) throws {
        openSavepoint()
        send(query)
    }

    /// Sends a hot statement that writes, as `post(_:)` a query.
    func post(_ statement: some HotStatement) {
        openSavepoint()
        send(statement)
    }

    /// The rows a writing statement returned.
    func writtenRows(_ query: PostgresQuery) throws -> [PostgresRow] { try write(query).rows }

    /// The rows a writing hot statement returned.
    func writtenRows(_ statement: some HotStatement) throws -> [PostgresRow] {
        openSavepoint()
        return try waited(statement)
    }

    /// How many rows a statement changed.
    func changes(_ query: PostgresQuery) throws -> Int { try write(query).metadata.rows ?? 0 }

    /// Sends the events held, as one insert, and the history entries held, as another (in the current command's
    /// savepoint), without waiting for them.
    func flush() throws {
        guard !held.isEmpty else { return }
        sendHeldQuestions()
        guard !held.isEmpty else { return }
        openSavepoint()
        if !held.members.isEmpty {
            send(HotStatements.InsertEvents("\(held.members) \(held.sequences) \(held.bodies)"))
        }
        if !held.historyFamilies.isEmpty {
            send(
                HotStatements.InsertHistory(
                    """
                    \(held.historyFamilies) \(held.historyChildren) \(held.historyTimes) \(held.historyEntries)
                    """))
        }
        // Some are of commands that ended unguarded: a failure of this insert is theirs.
        if held.eventsUnchecked { held.unchecked = true }
        held.clear()
    }

    /// Sends what is held (unless not `flushing` its events, which a later statement sends) and waits for everything
    /// sent; throws the first failure, or `SavepointNeeded` when a command that ended unguarded sent some of it (only
    /// a batch run again with savepoints can undo that command alone).
    func settle(flushing: Bool = true) throws {
        if flushing { try flush() }
        let sent = held.inFlight
        let unchecked = held.unchecked
        held.inFlight.removeAll(keepingCapacity: true)
        held.unchecked = false
        guard let last = sent.last else { return }
        // In order on the connection: once the last is answered, so is every one before it.
        try? last()
        for answer in sent {
            do {
                try answer()
            } catch {
                noteFailure()
                if unchecked, !PostgresSession.isConnectionLoss(error) { throw SavepointNeeded() }
                throw error
            }
        }
    }

    /// Sends `BEGIN` and asks for the transaction's id, waiting for neither: the first statement the transaction
    /// waits for (its lease lock, its first read) answers them too, and checks them. Returns the id's answer.
    func begin() -> StatementAnswer<[PostgresRow]> {
        send("BEGIN")
        return send(HotStatements.TransactionID(""))
    }

    /// Waits for `answer`, counting a wait only when it has not arrived yet.
    func answered<T: Sendable>(_ answer: StatementAnswer<T>) throws -> T {
        if !answer.isAnswered { held.waits += 1 }
        return try answer.wait()
    }

    /// Sends what is held and `COMMIT` after it, and waits once, for the `COMMIT`: answered in order, so everything
    /// sent before it is answered too. Throws when the server rolled back instead: the first failure among the
    /// statements sent before (`SavepointNeeded` when a command that ended unguarded sent it, as `settle`), or
    /// `RolledBack`.
    func commit() throws {
        try flush()
        held.statements += 1
        held.waits += 1
        let tag = try connection.send("COMMIT", logger: logger).wait().metadata.command
        guard tag == "COMMIT" else {
            // Why the server rolled back: a statement that failed outside any savepoint.
            try settle()
            throw PostgresStore.RolledBack(command: tag)
        }
        // Committed: no statement sent before failed (it would have ended the transaction), so there is nothing to
        // check.
        held.inFlight.removeAll()
        held.unchecked = false
    }

    static func milliseconds(_ date: Date) -> Int64 { Stored.milliseconds(date) }

    static func date(milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    // MARK: questions and known handles

    func question(_ id: UUID) throws -> Stored.Question? {
        if let cached = cachedQuestion(id) { return cached }
        if usesCache, held.unguarded, held.asking == id {
            // An ask's new id, the usual case, is not read: the question's insert fails on a taken one (the batch
            // then runs again guarded, where this reads it), and an ask that stores none is run again guarded.
            held.assumedNew = id
            return nil
        }
        let found = try rows(Self.readQuestion(id)).first.map { try AskReadRow($0).question() }
        if let found { stage(.question(found)) }
        return found
    }

    func pendingQuestion(
        child: MemberID, app: BundleID, handles: [CommunicationHandle], now: Date
    ) throws -> Stored.Question? {
        if let rows = cachedChild(child) {
            let key = Stored.handlesKey(handles)
            guard let found = rows.pendingQuestion(app: app, handlesKey: key, now: Self.milliseconds(now)) else {
                return nil
            }
            try checkAssumedNew(answeredBy: found)
            return found
        }
        let found = try rows(Self.readPendingQuestion(child: child, handles: handles, now: now))
        let stored = try found.lazy.map { try AskReadRow($0).question() }
        return stored.first { $0.asked.appBundleID == app }
    }

    /// An ask that took its question id for new (`question(_:)`) is answered with another pending question instead
    /// of storing its own: unless the id is indeed new (read now), it may be the retry of a stored question, which
    /// the batch run again guarded answers.
    private func checkAssumedNew(answeredBy found: Stored.Question) throws {
        guard let id = held.assumedNew, found.asked.question.id != id else { return }
        held.assumedNew = nil
        if try !rows(Self.readQuestion(id)).isEmpty { throw SavepointNeeded() }
    }

    func pendingQuestions(child: MemberID) throws -> [Stored.Question] {
        let found = try rows(
            """
            SELECT asked, resolution FROM question WHERE child_id = \(child) AND status = 0 ORDER BY asked_at, n
            """
        ).map(Self.decodeQuestion)
        // Kept for their resolution, which then knows their child (`stageResolution`).
        for question in found { stage(.question(question)) }
        return found
    }

    func expiredPendingQuestions(now: Date, limit: Int) throws -> [Stored.Question] {
        let found = try rows(
            """
            SELECT asked, resolution FROM question WHERE status = 0 AND expires_at IS NOT NULL
            AND expires_at <= \(Self.milliseconds(now)) ORDER BY expires_at, n LIMIT \(limit)
            """
        ).map(Self.decodeQuestion)
        for question in found { stage(.question(question)) }
        return found
    }

    func askCount(child: MemberID, since: Date, upTo limit: Int) throws -> Int {
        if let rows = try loadedChild(child, since: since) {
            return rows.askCount(since: Self.milliseconds(since), limit: limit)
        }
        // The engine reads the child's settings next (an ask): sent now, answered with the count.
        readAhead(Self.readSettings(of: child))
        let counted = try rows(Self.readAskCount(child: child, since: since, limit: limit))
        return try counted.first.flatMap { try AskReadRow($0).number }.map { Int($0) } ?? 0
    }

    func knownHandles(of child: MemberID, among handles: [CommunicationHandle]) throws -> [CommunicationHandle] {
        guard !handles.isEmpty else { return [] }
        if let known = cachedHandles(of: child) { return handles.filter(known.contains) }
        let read = try rows(Self.readKnownHandles(of: child, among: handles))
        let known = Set(try read.compactMap { try AskReadRow($0).handle })
        return handles.filter(known.contains)
    }

    func insert(_ asked: AskedQuestion, resolution: Resolution?) throws {
        post(HotStatements.InsertQuestion(bindings: try Self.questionRow(asked, resolution: resolution)))
        stage(.question(Stored.Question(asked: asked, resolution: resolution)))
        updateCachedChild(asked.childMemberID) { $0.add(asked, resolution: resolution) }
    }

    /// A pending question and its reminder in one statement, where they were two.
    func insert(_ asked: AskedQuestion, remindAt: Date?) throws {
        if usesCache {
            // Sent with the next statement: the next ask's reads, or alone before any other.
            held.questions.append(asked, remindAt: remindAt)
            stage(.question(Stored.Question(asked: asked, resolution: nil)))
            updateCachedChild(asked.childMemberID) { $0.add(asked, resolution: nil) }
            return
        }
        var bindings = try Self.questionRow(asked, resolution: nil)
        bindings.append(remindAt.map(Self.milliseconds))
        post(HotStatements.InsertPendingQuestion(bindings: bindings))
    }

    /// The bindings of a row of `question` (`HotStatements.InsertQuestion`'s $1 … $8).
    static func questionRow(_ asked: AskedQuestion, resolution: Resolution?) throws -> PostgresBindings {
        var w = WireWriter()
        w.askedQuestion(asked)
        let expires = asked.question.expirationDate.map(Self.milliseconds)
        let status: Int32 = resolution == nil ? 0 : 1
        let row: PostgresQuery = try """
        \(asked.question.id) \(asked.childMemberID) \(Stored.handlesKey(asked.question.handles)) \
        \(Data(w.bytes)) \(expires) \(status) \(resolution.map(Self.encodeResolution)) \
        \(Self.milliseconds(asked.askedAt))
        """
        return row.binds
    }

    func resolve(_ id: UUID, with resolution: Resolution) throws {
        let encoded = Self.encodeResolution(resolution)
        if usesCache {
            holdResolution(id, encoded, child: "", approving: [])
        } else {
            try post(HotStatements.Resolve("\(encoded) \(id)"))
        }
        stageResolution(id, resolution)
    }

    func addKnownHandles(
        _ handles: [CommunicationHandle], child: MemberID, question: UUID?
    ) throws -> [CommunicationHandle] {
        guard !handles.isEmpty else { return [] }
        if let known = try approvedSet(of: child) {
            let added = Self.unknown(handles, in: known)
            guard !added.isEmpty else { return [] }
            let (kinds, values) = Self.columns(of: added)
            post(HotStatements.AddKnownHandles("\(child) \(question) \(kinds) \(values)"))
            stage(.handles(child, known.union(added)))
            return added
        }
        let (kinds, values) = Self.columns(of: handles)
        var added = try handleSet(writtenRows(HotStatements.AddKnownHandles("\(child) \(question) \(kinds) \(values)")))
        // In `handles`' order, each once.
        return handles.filter { added.remove($0) != nil }
    }

    func removeKnownHandles(_ handles: [CommunicationHandle], child: MemberID) throws -> [CommunicationHandle] {
        let distinct = Array(Set(handles))
        guard !distinct.isEmpty else { return [] }
        let (kinds, values) = Self.columns(of: distinct)
        let removed = try handleSet(
            writtenRows(
                """
                DELETE FROM known_handle WHERE child_id = \(child)
                AND (kind, value) IN (SELECT * FROM unnest(\(kinds)::integer[], \(values)::text[]))
                RETURNING kind, value
                """))
        if let known = cachedHandles(of: child) { stage(.handles(child, known.subtracting(removed))) }
        return distinct.filter(removed.contains)
    }

    /// Handles as two columns, for `unnest`.
    static func columns(of handles: [CommunicationHandle]) -> (kinds: [Int32], values: [String]) {
        (handles.map { Int32($0.kind.rawValue) }, handles.map(\.value))
    }

    /// The handles of rows whose first columns are (kind, value).
    func handleSet(_ rows: [PostgresRow]) throws -> Set<CommunicationHandle> {
        var handles = Set<CommunicationHandle>()
        for row in rows {
            let (kind, value) = try row.decode((Int32, String).self)
            if let kind = CommunicationHandle.Kind(rawValue: UInt8(clamping: kind)) {
                handles.insert(CommunicationHandle(value: value, kind: kind))
            }
        }
        return handles
    }

    // MARK: events

    func events(of member: MemberID, after: UInt64, limit: Int) throws -> [Event] {
        try flush()
        let found = try rows(
            """
            SELECT seq, body FROM event WHERE member_id = \(member) AND seq > \(Int64(clamping: after))
            ORDER BY seq LIMIT \(limit)
            """)
        var events: [Event] = []
        var bytes = 0
        for row in found {
            let (sequence, body) = try row.decode((Int64, Data).self)
            let (event, size) = Stored.deliverableEvent(member: member, sequence: UInt64(sequence), body: body)
            bytes += size
            if bytes > Wire.maxReplyBodyBytes, !events.isEmpty { break }
            events.append(event)
        }
        return events
    }

    func appendEvent(_ event: Event, body: ArraySlice<UInt8>) throws {
        held.append(member: event.memberID, sequence: event.sequence, body: body)
    }

    // MARK: coding

    static func decodeQuestion(_ row: PostgresRow) throws -> Stored.Question {
        let (askedData, resolutionData) = try row.decode((Data, Data?).self)
        return try decodeQuestion(asked: askedData, resolution: resolutionData)
    }

    static func decodeQuestion(asked askedData: Data, resolution resolutionData: Data?) throws -> Stored.Question {
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
#endif
