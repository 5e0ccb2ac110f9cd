#if PostgreSQL
import Foundation
import HearthCore
import NIOCore
import PostgresNIO

/// What a write transaction of `PostgresStore` has not sent to the server, or not waited for, yet, and where its
/// current command stands: every statement is a round trip, and every wait wakes the writer's thread again, so the
/// store sends fewer statements and waits for fewer still.
///
/// - A command's savepoint is opened only before its first write: a command that only reads (hello, ping, sync, a
///   refused ask) costs none, and a command that fails before writing has nothing to undo. A batch of devices'
///   commands runs first with none at all (`unguarded`), and again with them only if a command failed after a write.
/// - Events are held and sent as one multi-row insert: a guarded command's when it ends (inside its savepoint), an
///   unguarded batch's for all its commands before `COMMIT`, and any before a query of `event` (so that it sees
///   them). Most commands append two to four; a batch of devices' commands sends one insert where it sent one or two
///   per command.
/// - Writes whose result the engine does not need, the savepoint and the events are sent without waiting: postgres-nio
///   runs them in order, and the next statement waited for (a read, the command's end, the commit) checks them.
/// - An ask's reads are sent as one statement before the first of them is waited for (`willCheckAsk`), and a read
///   the engine makes right after another (the settings after the ask count, the approved handles after the contact flags) is
///   sent with it (`ahead`), unless a write comes between: one wait answers them all.
/// - A command run `unguarded` does not wait for its writes when it ends: the next statement waited for (the next
///   command's, or the commit's `settle`) checks them, and a failure among them is `SavepointNeeded` (the batch runs
///   again with savepoints, where each command waits for its own).
///
/// Not `Sendable`: each write transaction makes its own and reaches it only through its `PostgresTransaction`, so the
/// compiler refuses any use of it from two threads at once, with no lock (it is touched on every statement).
final class HeldWrites {
    /// Events appended and not sent yet, as rows of `event`.
    var members: [String] = []
    var sequences: [Int64] = []
    var bodies: [ByteBuffer] = []
    /// History entries appended without their ids (`appendHistoryWithoutID`) and not sent yet, as rows of `history`,
    /// held and sent as the events are.
    var historyFamilies: [String] = []
    var historyChildren: [String] = []
    var historyTimes: [Int64] = []
    var historyEntries: [ByteBuffer] = []
    /// Pending questions asked and not sent yet (a partition owner's transaction only: `HeldQuestions`).
    var questions = HeldQuestions()
    /// How many of `questions` the current command found held when it began: those after are its own.
    var questionsBeforeCommand = 0
    /// Resolutions made and not sent yet (a partition owner's transaction only: `HeldResolutions`).
    var resolutions = HeldResolutions()
    /// How many of `resolutions` the current command found held when it began.
    var resolutionsBeforeCommand = 0

    /// The question id of the ask the current command checks (`willCheckAsk`, an owner's transaction only).
    var asking: UUID?
    /// Set when the current command, unguarded, took its ask's question id for new without reading it: the insert
    /// checks it (a taken id fails it, and the batch runs again guarded), and a command that ends without inserting
    /// it runs again guarded too (`PostgresTransaction.question`).
    var assumedNew: UUID?

    /// Inside a command: whether it wrote, so its `SAVEPOINT` was sent (nil outside a command).
    var savepointOpen: Bool?
    /// Whether the current command runs without a savepoint (`unguarded`).
    var unguarded = false
    /// Whether a statement of the current command failed: before its savepoint was opened, that aborted the whole
    /// transaction on the server.
    var commandFailed = false
    /// The answer to the current command's `SAVEPOINT`, once sent.
    var savepointAnswer: StatementAnswer<PostgresQueryResult>?
    /// Statements sent and not checked yet, in the order sent: each waits for its answer, and throws its failure.
    var inFlight: [() throws -> Void] = []
    /// Reads sent before the call that needs them (`PostgresTransaction.readAhead`), by statement and parameters.
    /// Forgotten at the next write and at the command's end: they would not see what came after them.
    var ahead: [ReadAhead: SentRead] = [:]
    /// The last read sent ahead and not waited for: answered in order, so once it is, every statement sent before it
    /// is too.
    var aheadTail: StatementAnswer<[PostgresRow]>?
    /// Whether `inFlight` holds statements of a command that ended unguarded without waiting for them.
    var unchecked = false
    /// Whether the events or history entries held include some of a command that ended unguarded: once sent, they
    /// are `unchecked`.
    var eventsUnchecked = false
    /// What this transaction changed of the owner cache's rows, or read of them, in order: applied once it commits
    /// (`OwnerCache.apply`), cut back with a command that is undone.
    var cacheChanges: [OwnerCache.Change] = []
    /// The owner cache's generation when this transaction began.
    var cacheGeneration = 0
    /// The answer to the leases' check sent without waiting (`PostgresTransaction.fenceLeases`): failed, the server
    /// refused the transaction's leases, and the transaction with them.
    var fence: StatementAnswer<[PostgresRow]>?
    /// Statements sent in this transaction (what the store saves is round trips: its tests count them).
    var statements = 0
    /// Statements the writer's thread waited for in this transaction (each wait is a wake-up: its tests count them).
    var waits = 0

    /// Whether no event, history entry or question is held.
    var isEmpty: Bool { members.isEmpty && historyFamilies.isEmpty && questions.isEmpty && resolutions.isEmpty }

    /// Whether questions or resolutions are held (`PostgresTransaction.sendHeldQuestions`).
    var holdsRows: Bool { !questions.isEmpty || !resolutions.isEmpty }

    /// How many events and history entries are held: where a command's own begin.
    struct Mark {
        var events: Int
        var history: Int
        var questions = 0
        var resolutions = 0
    }

    /// A read sent ahead: the statement and its parameters.
    struct ReadAhead: Hashable {
        var name: String
        var bindings: PostgresBindings
    }

    /// The answer to a read sent ahead: its statement's, or the rows of one part of a statement that made several
    /// reads at once (`AskReads`, its rows marked by part in their first column).
    struct SentRead {
        var answer: StatementAnswer<[PostgresRow]>
        var part: Int32?
    }

    /// Forgets the reads sent ahead (they stay in `inFlight`): a write came after them, or their command ended.
    func forgetAhead() {
        ahead.removeAll()
        aheadTail = nil
    }

    func append(member: MemberID, sequence: UInt64, body: ArraySlice<UInt8>) {
        members.append(member)
        sequences.append(Int64(sequence))
        bodies.append(ByteBuffer(bytes: body))
    }

    /// How many events and history entries are held now.
    var mark: Mark {
        Mark(
            events: members.count, history: historyFamilies.count, questions: questions.count,
            resolutions: resolutions.count)
    }

    func appendHistory(family: FamilyID, child: MemberID, recordedAt: Int64, entry: Data) {
        historyFamilies.append(family)
        historyChildren.append(child)
        historyTimes.append(recordedAt)
        historyEntries.append(ByteBuffer(bytes: entry))
    }

    /// Forgets the events and history entries held (sent, or their command failed).
    func clear() {
        truncate(to: Mark(events: 0, history: 0))
        eventsUnchecked = false
    }

    /// Forgets the events and history entries held after `mark`: those of a command that failed, while the commands
    /// before it that ended unguarded keep theirs.
    func truncate(to mark: Mark) {
        if mark.events < members.count {
            members.removeSubrange(mark.events...)
            sequences.removeSubrange(mark.events...)
            bodies.removeSubrange(mark.events...)
        }
        if mark.history < historyFamilies.count {
            historyFamilies.removeSubrange(mark.history...)
            historyChildren.removeSubrange(mark.history...)
            historyTimes.removeSubrange(mark.history...)
            historyEntries.removeSubrange(mark.history...)
        }
        questions.truncate(to: mark.questions)
        resolutions.truncate(to: mark.resolutions)
    }
}
#endif
