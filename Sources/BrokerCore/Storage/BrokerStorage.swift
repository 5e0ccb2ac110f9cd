package import Foundation
package import HearthCore
package import HearthProtocol

/// What the broker engine needs from storage: the seam between the engine and a backend (`BrokerStore` on SQLite
/// is the first; another database is a second type conforming to this, with no change to the engine).
///
/// Contract, which every backend keeps and `StorageContractTests` checks:
/// - `transaction(_:committed:)` runs `work` in one transaction, alone among transactions of this store and in the
///   order they were started. When `work` returns, its changes commit durably (a committed change survives a crash
///   or power loss) and then `committed` runs with its result, before any later transaction's `work` starts, so
///   that what `committed` sends leaves in commit order. When `work` throws, or the commit fails, nothing of it is
///   stored, `committed` does not run, and the error is rethrown.
/// - `StorageWriter.savepoint` runs a part of a transaction that is undone alone when it throws: the rest of the
///   transaction goes on and commits without it. `StorageWriter.unguarded` runs one without that cost, and says
///   (`SavepointNeeded`) when it threw after a change that only a savepoint could have undone.
/// - `reading(_:)` sees the state of one committed transaction (never part of one), and does not wait for writers.
/// - Reads within a transaction see the transaction's own writes.
/// - Events: `appendEvent` stores an event with its wire encoding (`MessageCodec`'s layout of `Event`, the codec
///   being the single source of truth of that layout), keyed by (member, sequence), which are unique; `events(of:)`
///   returns them in sequence order. Heads are the highest sequence stored per member.
/// - Questions, resolutions, age prompts and answers are returned as they were stored; "pending" means stored with
///   no resolution. Every query with a `now` compares stored dates at millisecond precision.
package protocol BrokerStorage: Sendable {
    /// The last sequence number of every member's log.
    func heads() throws -> [MemberID: UInt64]

    /// Runs `body` against committed state, off the writer.
    func reading<T: Sendable>(_ body: @escaping @Sendable (any StorageReader) throws -> T) async throws -> T

    /// The most devices' commands the engine runs in one transaction (nil: a whole batch). A store whose statements
    /// are round trips bounds it, so that a transaction stays short of the locks and leases it holds.
    var maxCommandsPerTransaction: Int? { get }

    /// Runs `work` in one transaction, then `committed` once it committed (see the contract above).
    func transaction<T: Sendable>(
        _ work: @escaping @Sendable (any StorageWriter) throws -> T, committed: @escaping @Sendable (T) -> Void
    ) async throws -> T
}

/// The queries the engine asks of its store.
package protocol StorageReader {
    // MARK: questions and known handles

    func question(_ id: UUID) throws -> Stored.Question?
    /// The child's pending, unexpired question from `app` about exactly these handles (in any order).
    func pendingQuestion(
        child: MemberID, app: BundleID, handles: [CommunicationHandle], now: Date
    ) throws -> Stored.Question?
    /// The child's pending questions, oldest first.
    func pendingQuestions(child: MemberID) throws -> [Stored.Question]
    /// Pending questions whose expiration date is at or before `now`, at most `limit`.
    func expiredPendingQuestions(now: Date, limit: Int) throws -> [Stored.Question]
    /// How many questions the child asked at or after `since`, counting no further than `limit`.
    func askCount(child: MemberID, since: Date, upTo limit: Int) throws -> Int
    /// The subset of `handles` the child has had approved, in `handles`' order.
    func knownHandles(of child: MemberID, among handles: [CommunicationHandle]) throws -> [CommunicationHandle]
    /// The child's approved handles by kind then value, each with the question that approved it (when kept).
    func approvedHandles(of child: MemberID) throws -> [(handle: CommunicationHandle, question: UUID?)]
    /// Questions whose reminder is due at `now`, earliest first, at most `limit` (pending or not: the caller checks).
    func dueReminders(at now: Date, limit: Int) throws -> [UUID]

    // MARK: history

    /// At most `limit` entries of the child's history in `family`, after (oldest first) or before (newest first) the
    /// query's cursor (0: from the start or the newest), recorded at or after its `since`.
    func history(of child: MemberID, family: FamilyID, query: HistoryQuery, limit: Int) throws -> [HistoryEntry]
    /// Whether entry `id` is one of the child's history in `family`.
    func historyHas(_ id: UInt64, child: MemberID, family: FamilyID) throws -> Bool

    // MARK: events

    /// Events after `after`, oldest first: at most `limit`, and no more than fit in one frame (always at least one).
    func events(of member: MemberID, after: UInt64, limit: Int) throws -> [Event]

    // MARK: directory

    /// Every stored family row.
    func familyRows() throws -> [FamilyID: Stored.Family]
    /// Each stored row's source hash (nil for a row that is only the broker's), without decoding the entries.
    func sourceHashes() throws -> [FamilyID: String?]
    /// Whether the stored rows are `file`'s families as last applied and nothing else (see `BrokerStore`).
    func holdsExactly(_ file: FamilyFile) throws -> Bool
    /// The stored directory as a family file (nil when nothing was ever stored).
    func storedFile() throws -> FamilyFile?
    /// Public keys revoked by an admin: never enrolled again from the family file.
    func revokedKeys() throws -> Set<String>

    // MARK: settings, contacts, passcodes

    func settings(of child: MemberID) throws -> CommunicationSettings?
    /// The child's contacts, by kind and value.
    func contacts(of child: MemberID) throws -> [Contact]
    /// Which of `handles` are the child's contacts, each with whether it is allowed during downtime.
    func contactFlags(of child: MemberID, among handles: [CommunicationHandle]) throws -> [CommunicationHandle: Bool]
    func passcode(of child: MemberID) throws -> Stored.Passcode?

    // MARK: Declared Age Range

    func ageSharing(of member: MemberID) throws -> AgeSharing?
    func ageCache(_ member: MemberID, app: BundleID) throws -> Stored.AgeCache?
    /// Cache entries due for review at `now`, earliest first (a bounded number per call).
    func ageCacheDue(at now: Date) throws -> [Stored.AgeCache]
    func agePrompt(_ id: UUID) throws -> (prompt: AgePrompt, status: Stored.PromptStatus)?
    /// The open, unexpired prompts of (member, app).
    func openAgePrompts(_ member: MemberID, app: BundleID, now: Date) throws -> [AgePrompt]
    /// Open prompts whose deadline is at or before `now` (a bounded number per call).
    func expiredAgePrompts(at now: Date) throws -> [AgePrompt]
}

/// The changes the engine makes, inside `BrokerStorage.transaction`.
package protocol StorageWriter: StorageReader {
    /// Runs `body`; when it throws, what it changed is undone and the error rethrown, and the transaction goes on.
    func savepoint<T>(_ body: () throws -> T) throws -> T
    /// Runs `body` without a savepoint, when the store can tell afterwards whether it changed anything. When `body`
    /// throws having changed nothing, the error is rethrown and the transaction goes on; when it throws having changed
    /// something, `SavepointNeeded` is thrown instead and the caller must not commit. A store that checks writes
    /// later may throw it from a later call of the transaction, or from `transaction` before its commit, instead. A
    /// store that cannot tell runs `body` in a savepoint (the default).
    func unguarded<T>(_ body: () throws -> T) throws -> T

    // MARK: questions and known handles

    /// A hint before an ask by `child` is checked: the ask reads the question `id`, the child's ask count since
    /// `since` (up to `limit`) and settings, and with `handles`, the child's contact flags and approved handles
    /// among them and its pending question about them at `now`. A store whose reads are round trips sends them all
    /// now, to be answered together; the calls return the same whether or not it did (default: nothing).
    func willCheckAsk(_ id: UUID, child: MemberID, handles: [CommunicationHandle], since: Date, limit: Int, now: Date)
    func insert(_ asked: AskedQuestion, resolution: Resolution?) throws
    /// Stores a question going pending with its reminder due at `remindAt` (none when nil): `insert`, then
    /// `scheduleReminder` (default), or one write where the store keeps the reminder in the question's row.
    func insert(_ asked: AskedQuestion, remindAt: Date?) throws
    func resolve(_ id: UUID, with resolution: Resolution) throws
    /// Adds approved handles; returns those that were not known before.
    func addKnownHandles(
        _ handles: [CommunicationHandle], child: MemberID, question: UUID?
    ) throws -> [CommunicationHandle]
    /// Resolves a question approving `handles` for the child (none for a denial): `resolve`, then `addKnownHandles`
    /// (default), or one write where the store knows which handles are new. Returns those that were not known.
    func resolve(
        _ id: UUID, with resolution: Resolution, approving handles: [CommunicationHandle], child: MemberID
    ) throws -> [CommunicationHandle]
    /// Removes approved handles; returns those that were known.
    func removeKnownHandles(_ handles: [CommunicationHandle], child: MemberID) throws -> [CommunicationHandle]
    /// Keeps a reminder for the stored `question` due at `date` (replacing one it had). The question is stored first:
    /// SQLite's reminder refers to the question's row, and refuses one for a question it does not hold.
    func scheduleReminder(_ question: UUID, at date: Date) throws
    /// Forgets the question's reminder, sent or moot.
    func removeReminder(_ question: UUID) throws

    // MARK: history

    /// Stores an entry of the child's history in `family` (its `id` is ignored); returns its id, greater than every
    /// id stored before it.
    func appendHistory(_ entry: HistoryEntry, family: FamilyID) throws -> UInt64
    /// Stores an entry whose id the caller does not need (default: `appendHistory`): a store whose statements are
    /// round trips need not wait for it.
    func appendHistoryWithoutID(_ entry: HistoryEntry, family: FamilyID) throws

    // MARK: events

    /// Stores `event`, whose wire encoding (the body of its 0x90 frame) is `body`.
    func appendEvent(_ event: Event, body: ArraySlice<UInt8>) throws

    // MARK: directory

    /// Stores a family's row; `entry` is the family as `Stored.Family.entryEncoder()` encodes it.
    func saveFamily(entry: Data, id: FamilyID, sourceHash: String?) throws
    func deleteFamily(_ id: FamilyID) throws
    func revokeKey(_ key: String, device: DeviceID, member: MemberID, at date: Date) throws
    func unrevokeKey(_ key: String) throws

    // MARK: settings, contacts, passcodes

    func saveSettings(_ settings: CommunicationSettings, of child: MemberID) throws
    /// Adds or updates contacts; returns the handles that were not contacts before.
    func upsertContacts(_ contacts: [Contact], of child: MemberID) throws -> [CommunicationHandle]
    /// Removes contacts; returns those that were contacts.
    func removeContacts(_ handles: [CommunicationHandle], of child: MemberID) throws -> [CommunicationHandle]
    /// Stores the child's passcode row, or removes it when nil.
    func savePasscode(_ row: Stored.Passcode?, of child: MemberID) throws

    // MARK: Declared Age Range

    func setAgeSharing(_ setting: AgeSharing, of member: MemberID, by: MemberID, at: Date) throws
    func saveAgeCache(_ entry: Stored.AgeCache) throws
    /// Forgets (member, app); true if there was something to forget.
    func clearAgeCache(_ member: MemberID, app: BundleID) throws -> Bool
    func insertAgePrompt(_ prompt: AgePrompt) throws
    func closeAgePrompt(_ id: UUID, status: Stored.PromptStatus) throws
}

extension BrokerStorage {
    package var maxCommandsPerTransaction: Int? { nil }
}

extension StorageWriter {
    package func unguarded<T>(_ body: () throws -> T) throws -> T { try savepoint(body) }

    package func willCheckAsk(
        _ id: UUID, child: MemberID, handles: [CommunicationHandle], since: Date, limit: Int, now: Date
    ) {}

    package func insert(_ asked: AskedQuestion, remindAt: Date?) throws {
        try insert(asked, resolution: nil)
        // After the question: a store's reminder may refer to its row.
        if let remindAt { try scheduleReminder(asked.question.id, at: remindAt) }
    }

    package func appendHistoryWithoutID(_ entry: HistoryEntry, family: FamilyID) throws {
        _ = try appendHistory(entry, family: family)
    }

    package func resolve(
        _ id: UUID, with resolution: Resolution, approving handles: [CommunicationHandle], child: MemberID
    ) throws -> [CommunicationHandle] {
        try resolve(id, with: resolution)
        guard !handles.isEmpty else { return [] }
        return try addKnownHandles(handles, child: child, question: id)
    }
}
