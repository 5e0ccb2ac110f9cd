import Foundation
import GRDB
import GRDBSQLite
import Logging
import Synchronization

/// Copies the broker's write-ahead log back into the database file on a thread and a connection of its own.
///
/// Left to the writer, a checkpoint runs right after a commit every `writerPages` pages of log: it copies every page
/// changed since the last one and syncs the database file while the next batch of commands, and every reply and event
/// waiting on it, waits (~100 ms under load). Once started, passive checkpoints here copy the log every `pagesPerPass`
/// pages (every `finalPagesPerPass` near the writer's limit) without blocking the writer; the writer's own checkpoint
/// then finds only the last few pages to copy, and completes the log so that SQLite writes it from the beginning
/// again.
public final class WALCheckpointer: Sendable {
    /// One pass: the log's length and how much of it is now in the database file, in pages.
    public struct Pass: Sendable, Equatable {
        public var logPages: Int
        public var checkpointedPages: Int
    }

    /// Checkpoints counted since the store opened.
    public struct Counts: Sendable, Equatable {
        /// Passes on the checkpointer's thread.
        public var background = 0
        /// Background passes skipped because the writer was checkpointing.
        public var busy = 0
        /// Checkpoints run by the writer after a commit.
        public var writer = 0

        package init(background: Int = 0, busy: Int = 0, writer: Int = 0) {
            self.background = background
            self.busy = busy
            self.writer = writer
        }
    }

    private struct State {
        var running = false
        var stopping = false
        var pending = false
        var logPages = 0
        var checkpointedPages = 0
        var counts = Counts()
        var queue: DatabaseQueue?
    }

    /// Log pages between background passes, while the log is more than that short of `writerPages`. Each pass copies
    /// the latest copy of every page changed since the last one, so a page a busy store changes in every commit is
    /// copied once per pass: fewer passes copy less.
    public let pagesPerPass: Int
    /// Log pages between background passes once the log is within `pagesPerPass` of `writerPages`, so that the writer's
    /// own checkpoint, which the next batch waits for, finds at most about this much left to copy.
    public let finalPagesPerPass: Int
    /// Log pages after which the writer checkpoints itself, as SQLite's `wal_autocheckpoint` would.
    public let writerPages: Int
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(pagesPerPass: Int, finalPagesPerPass: Int? = nil, writerPages: Int) {
        self.pagesPerPass = pagesPerPass
        self.finalPagesPerPass = min(finalPagesPerPass ?? pagesPerPass, pagesPerPass)
        self.writerPages = writerPages
    }

    /// Whether a background pass is due with `logPages` of log, `checkpointedPages` of it already copied.
    func passDue(logPages: Int, checkpointedPages: Int) -> Bool {
        let interval = logPages + pagesPerPass >= writerPages ? finalPagesPerPass : pagesPerPass
        return logPages - checkpointedPages >= interval
    }

    /// What has been checkpointed, and by whom.
    public var counts: Counts { state.withLock { $0.counts } }

    /// Log pages not yet in the database file, as of the last commit or pass.
    var uncheckpointedPages: Int { state.withLock { max(0, $0.logPages - $0.checkpointedPages) } }

    /// Replaces SQLite's automatic checkpoint on `db` (a commit hook, `sqlite3_wal_hook`): after each commit the
    /// writer wakes the background thread, or checkpoints itself once the log reaches `writerPages`.
    /// The store keeps this object alive for as long as its connections are open.
    func install(on db: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, name, pages in
                guard let context else { return SQLITE_OK }
                Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(
                    logPages: Int(pages), connection: connection, name: name)
                return SQLITE_OK
            }, context)
    }

    private func committed(logPages: Int, connection: OpaquePointer?, name: UnsafePointer<CChar>?) {
        if logPages >= writerPages {
            // What SQLite's own automatic checkpoint does; busy (the background pass holds the log) is retried
            // after the next commit.
            if sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil) == SQLITE_OK {
                state.withLock { $0.counts.writer += 1 }
            }
            return
        }
        let due = state.withLock { state -> Bool in
            // A shorter log than last time: SQLite has started writing it from the beginning.
            if logPages < state.logPages { state.checkpointedPages = 0 }
            state.logPages = logPages
            guard state.running, !state.stopping, !state.pending,
                passDue(logPages: logPages, checkpointedPages: state.checkpointedPages)
            else { return false }
            state.pending = true
            return true
        }
        if due { wake.signal() }
    }

    /// Opens a connection of its own to `path` and starts the thread: a checkpoint is blocking file I/O, so it stays
    /// off the cooperative pool.
    func start(path: String, logger: Logger) throws {
        var config = Configuration()
        config.label = "family-broker.checkpointer"
        let queue = try DatabaseQueue(path: path, configuration: config)
        let started = state.withLock { state -> Bool in
            guard !state.running, !state.stopping else { return false }
            state.running = true
            state.queue = queue
            return true
        }
        guard started else { return try queue.close() }
        let thread = Thread { [self] in
            var again = false
            while true {
                if !again { wake.wait() }
                if state.withLock({ $0.stopping }) { break }
                let before = state.withLock { $0.checkpointedPages }
                do {
                    _ = try checkpoint()
                } catch {
                    logger.warning("background checkpoint failed", metadata: ["error": "\(error)"])
                }
                again = state.withLock { state in
                    // Commits during the pass did not wake the thread: go on while a pass is due and the last one
                    // got somewhere (a reader still on old pages can hold the log back).
                    state.pending =
                        state.checkpointedPages > before
                        && passDue(logPages: state.logPages, checkpointedPages: state.checkpointedPages)
                    return state.pending
                }
            }
            finished.signal()
        }
        thread.name = "broker-checkpoint"
        thread.start()
    }

    /// Stops the thread after its current pass and closes its connection.
    func stop() {
        let (wasRunning, queue) = state.withLock { state in
            defer {
                state.stopping = true
                state.queue = nil
            }
            return (state.running && !state.stopping, state.queue)
        }
        if wasRunning {
            wake.signal()
            finished.wait()
        }
        try? queue?.close()
    }

    /// One passive checkpoint on the background connection now: copies what no reader still needs and never waits
    /// for a lock. Nil when not started, or when the writer's checkpoint holds the log.
    @discardableResult
    func checkpoint() throws -> Pass? {
        guard let queue = state.withLock({ $0.queue }) else { return nil }
        do {
            let result = try queue.inDatabase { db in try db.checkpoint(.passive) }
            state.withLock { state in
                state.counts.background += 1
                state.checkpointedPages = result.checkpointedFrameCount
            }
            return Pass(logPages: result.walFrameCount, checkpointedPages: result.checkpointedFrameCount)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            state.withLock { $0.counts.busy += 1 }
            return nil
        }
    }
}
