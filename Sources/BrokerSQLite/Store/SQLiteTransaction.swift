import BrokerCore
import Foundation
import GRDB
import HearthCore
import HearthProtocol

extension BrokerStore: BrokerStorage {
    func reading<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T {
        try await pool.read { db in try body(SQLiteTransaction(db: db)) }
    }

    func transaction<T: Sendable>(
        _ work: @escaping @Sendable (any StorageWriter) throws -> T, committed: @escaping @Sendable (T) -> Void
    ) async throws -> T {
        // On the writer's connection, which GRDB's writer queue serializes wherever the transaction runs: `committed`
        // runs there too, before the next transaction starts.
        let measured: @Sendable (Database) throws -> T = { [self] db in
            try writerCPU.measure {
                try writerStatements.withLock { statements in
                    try Self.transaction(
                        db, statements: statements, commitDelay: commitDelay, work, committed: committed)
                }
            }
        }
        // On the broker's writer thread the transaction runs inline (GRDB's queue runs a synchronous write on its
        // caller's thread): no hop to the queue's thread and back. Anywhere else it must not block the caller.
        if WriterThread.isCurrent {
            // As GRDB's asynchronous write would: a cancelled task starts no transaction.
            try Task.checkCancellation()
            return try await recordingDiskFailures { try writeInline(measured) }
        }
        return try await recordingDiskFailures { try await pool.writeWithoutTransaction { try measured($0) } }
    }

    /// `body` on the writer's connection on the calling thread, which waits for any write already running.
    private func writeInline<T>(_ body: (Database) throws -> T) throws -> T {
        try pool.writeWithoutTransaction(body)
    }

    /// The write transaction on the writer's connection: `work`, the commit, then `committed`.
    private static func transaction<T: Sendable>(
        _ db: Database, statements: WriterStatements, commitDelay: (@Sendable () -> Duration)?,
        _ work: (any StorageWriter) throws -> T, committed: (T) -> Void
    ) throws -> T {
        let result: T
        do {
            result = try statements.inTransaction(db) {
                try statements.noteOtherWriters(db)
                try statements.settleRecentEvents(in: db)
                try statements.settleRecentHistory(in: db)
                try BrokerStore.settleRecentKnownHandles(in: db)
                let result = try work(SQLiteTransaction(db: db, hot: statements))
                if let delay = commitDelay?(), delay > .zero {
                    Thread.sleep(
                        forTimeInterval: Double(delay.components.seconds)
                            + Double(delay.components.attoseconds) * 1e-18)
                }
                return result
            }
        } catch {
            // Nothing of it is stored: the writer's memory of it goes too.
            statements.rolledBack()
            throw error
        }
        statements.committed()
        committed(result)
        return result
    }
}

/// A connection of `BrokerStore` inside a transaction (or a read), as the engine's `StorageWriter`: each call is the
/// store's SQL for it. In the write transaction (`hot`) the hottest run on the writer's prepared statements.
struct SQLiteTransaction: StorageWriter {
    let db: Database
    /// The writer's prepared statements; nil on a read connection.
    var hot: WriterStatements?

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try hot?.ensureOpen(db)
        try run(.savepoint)
        let mark = hot?.mark
        do {
            let result = try body()
            try run(.release)
            return result
        } catch {
            if let mark { hot?.rollback(to: mark) }
            let error = BrokerStore.classify(error)
            // After a refused write SQLite may have rolled the whole transaction back, savepoint and all: the batch
            // fails (`StoreUnavailable` leaves the engine's savepoint), so only the first error matters.
            guard !(error is StoreUnavailable) else {
                try? run(.rollbackTo)
                throw error
            }
            try run(.rollbackTo)
            try run(.release)
            throw error
        }
    }

    /// SQLite undoes a failed statement alone, so a command that throws before its first change has changed nothing;
    /// the connection's change count tells whether it had. This spares the savepoint's statements and, above all, the
    /// copy SQLite keeps of every page a command changes inside one
    /// (docs/decisions/0013-batches-without-savepoints.md).
    func unguarded<T>(_ body: () throws -> T) throws -> T {
        try hot?.ensureOpen(db)
        let before = db.totalChangesCount
        let mark = hot?.mark
        do {
            return try body()
        } catch {
            if let mark { hot?.rollback(to: mark) }
            let error = BrokerStore.classify(error)
            // A refused write fails the whole batch anyway (see `savepoint`).
            guard error is StoreUnavailable || db.totalChangesCount == before else { throw SavepointNeeded() }
            throw error
        }
    }

    /// One of the savepoint statements: a savepoint per command is on the hot path.
    private func run(_ query: WriterStatements.Query) throws {
        if let hot { return try hot.execute(query, db) }
        try db.cachedStatement(sql: query.sql).execute()
    }

    // MARK: questions and known handles

    func question(_ id: UUID) throws -> Stored.Question? {
        if let hot { return try hot.question(id, in: db) }
        return try BrokerStore.question(id, in: db)
    }

    func pendingQuestion(
        child: MemberID, app: BundleID, handles: [CommunicationHandle], now: Date
    ) throws -> Stored.Question? {
        let key = Stored.handlesKey(handles)
        if let hot { return try hot.pendingQuestion(child: child, app: app, handlesKey: key, now: now, in: db) }
        return try BrokerStore.pendingQuestion(child: child, app: app, handlesKey: key, now: now, in: db)
    }

    func pendingQuestions(child: MemberID) throws -> [Stored.Question] {
        try BrokerStore.pendingQuestions(child: child, in: db)
    }

    func expiredPendingQuestions(now: Date, limit: Int) throws -> [Stored.Question] {
        try BrokerStore.expiredPendingQuestions(now: now, limit: limit, in: db)
    }

    func askCount(child: MemberID, since: Date, upTo limit: Int) throws -> Int {
        if let hot { return try hot.askCount(child: child, since: since, upTo: limit, in: db) }
        return try BrokerStore.askCount(child: child, since: since, upTo: limit, in: db)
    }

    func knownHandles(of child: MemberID, among handles: [CommunicationHandle]) throws -> [CommunicationHandle] {
        if let hot { return try hot.knownHandles(of: child, among: handles, in: db) }
        return try BrokerStore.knownHandles(of: child, among: handles, in: db)
    }

    func insert(_ asked: AskedQuestion, resolution: Resolution?) throws {
        if let hot { return try hot.insert(asked, resolution: resolution, in: db) }
        try BrokerStore.insert(asked, resolution: resolution, in: db)
    }

    /// The question and its reminder in one row: one `INSERT` where a reminder of its own cost an `UPDATE` (or a
    /// row and an index entry before `v10-reminder-in-question`).
    func insert(_ asked: AskedQuestion, remindAt: Date?) throws {
        guard let hot, let remindAt else {
            try insert(asked, resolution: nil)
            if let remindAt { try scheduleReminder(asked.question.id, at: remindAt) }
            return
        }
        try hot.insert(asked, resolution: nil, remindAt: Stored.milliseconds(remindAt), in: db)
    }

    func resolve(_ id: UUID, with resolution: Resolution) throws {
        if let hot { return try hot.resolve(id, with: resolution, in: db) }
        try BrokerStore.resolve(id, with: resolution, in: db)
    }

    func addKnownHandles(
        _ handles: [CommunicationHandle], child: MemberID, question: UUID?
    ) throws -> [CommunicationHandle] {
        if let hot { return try hot.addKnownHandles(handles, child: child, question: question, in: db) }
        return try BrokerStore.addKnownHandles(handles, child: child, question: question, in: db)
    }

    func removeKnownHandles(_ handles: [CommunicationHandle], child: MemberID) throws -> [CommunicationHandle] {
        try BrokerStore.removeKnownHandles(handles, child: child, in: db)
    }

    // MARK: events

    func events(of member: MemberID, after: UInt64, limit: Int) throws -> [Event] {
        if let hot { return try hot.events(of: member, after: after, limit: limit, in: db) }
        return try BrokerStore.events(of: member, after: after, limit: limit, in: db)
    }

    func appendEvent(_ event: Event, body: ArraySlice<UInt8>) throws {
        if let hot { return try hot.appendEvent(event, body: body, in: db) }
        try BrokerStore.appendEvent(event, body: body, in: db)
    }

    // MARK: directory

    func familyRows() throws -> [FamilyID: Stored.Family] { try BrokerStore.familyRows(in: db) }
    func sourceHashes() throws -> [FamilyID: String?] { try BrokerStore.sourceHashes(in: db) }
    func holdsExactly(_ file: FamilyFile) throws -> Bool { try BrokerStore.holdsExactly(file, in: db) }
    func storedFile() throws -> FamilyFile? { try BrokerStore.storedFile(in: db) }
    func revokedKeys() throws -> Set<String> { try BrokerStore.revokedKeys(in: db) }

    func saveFamily(entry: Data, id: FamilyID, sourceHash: String?) throws {
        try BrokerStore.saveFamily(entry: entry, id: id, sourceHash: sourceHash, in: db)
    }

    func deleteFamily(_ id: FamilyID) throws { try BrokerStore.deleteFamily(id, in: db) }

    func revokeKey(_ key: String, device: DeviceID, member: MemberID, at date: Date) throws {
        try BrokerStore.revokeKey(key, device: device, member: member, at: date, in: db)
    }

    func unrevokeKey(_ key: String) throws { try BrokerStore.unrevokeKey(key, in: db) }

    // MARK: settings, contacts, passcodes

    func settings(of child: MemberID) throws -> CommunicationSettings? {
        if let hot { return try hot.settings(of: child, in: db) }
        return try BrokerStore.settings(of: child, in: db)
    }

    func contacts(of child: MemberID) throws -> [Contact] { try BrokerStore.contacts(of: child, in: db) }

    func contactFlags(of child: MemberID, among handles: [CommunicationHandle]) throws -> [CommunicationHandle: Bool] {
        if let hot { return try hot.contactFlags(of: child, among: handles, in: db) }
        return try BrokerStore.contactFlags(of: child, among: handles, in: db)
    }

    func passcode(of child: MemberID) throws -> Stored.Passcode? { try BrokerStore.passcode(of: child, in: db) }

    func saveSettings(_ settings: CommunicationSettings, of child: MemberID) throws {
        try BrokerStore.saveSettings(settings, of: child, in: db)
    }

    func upsertContacts(_ contacts: [Contact], of child: MemberID) throws -> [CommunicationHandle] {
        try BrokerStore.upsertContacts(contacts, of: child, in: db)
    }

    func removeContacts(_ handles: [CommunicationHandle], of child: MemberID) throws -> [CommunicationHandle] {
        try BrokerStore.removeContacts(handles, of: child, in: db)
    }

    func savePasscode(_ row: Stored.Passcode?, of child: MemberID) throws {
        try BrokerStore.savePasscode(row, of: child, in: db)
    }

    // MARK: Declared Age Range

    func ageSharing(of member: MemberID) throws -> AgeSharing? { try BrokerStore.ageSharing(of: member, in: db) }

    func ageCache(_ member: MemberID, app: BundleID) throws -> Stored.AgeCache? {
        try BrokerStore.ageCache(member, app: app, in: db)
    }

    func ageCacheDue(at now: Date) throws -> [Stored.AgeCache] { try BrokerStore.ageCacheDue(at: now, in: db) }

    func agePrompt(_ id: UUID) throws -> (prompt: AgePrompt, status: Stored.PromptStatus)? {
        try BrokerStore.agePrompt(id, in: db)
    }

    func openAgePrompts(_ member: MemberID, app: BundleID, now: Date) throws -> [AgePrompt] {
        try BrokerStore.openAgePrompts(member, app: app, now: now, in: db)
    }

    func expiredAgePrompts(at now: Date) throws -> [AgePrompt] { try BrokerStore.expiredAgePrompts(at: now, in: db) }

    func setAgeSharing(_ setting: AgeSharing, of member: MemberID, by: MemberID, at: Date) throws {
        try BrokerStore.setAgeSharing(setting, of: member, by: by, at: at, in: db)
    }

    func saveAgeCache(_ entry: Stored.AgeCache) throws { try BrokerStore.saveAgeCache(entry, in: db) }
    func clearAgeCache(_ member: MemberID, app: BundleID) throws -> Bool {
        try BrokerStore.clearAgeCache(member, app: app, in: db)
    }
    func insertAgePrompt(_ prompt: AgePrompt) throws { try BrokerStore.insertAgePrompt(prompt, in: db) }

    func closeAgePrompt(_ id: UUID, status: Stored.PromptStatus) throws {
        try BrokerStore.closeAgePrompt(id, status: status, in: db)
    }
}
