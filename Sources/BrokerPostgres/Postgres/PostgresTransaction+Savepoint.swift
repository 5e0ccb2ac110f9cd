#if PostgreSQL
import BrokerCore
import Logging
import NIOCore
import PostgresNIO

/// Commands, each undone alone when it throws, and how statements are sent inside them.
extension PostgresTransaction {
    /// A command. Its `SAVEPOINT` is sent before its first write, and never released: the next command's, of the
    /// same name, hides it, and `ROLLBACK TO` goes back to the newest. When it returns, everything it sent has been
    /// answered (a write that failed then fails it).
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try command(guarded: true, body)
    }

    /// A command with no savepoint at all. When it throws after it sent a write, or after a statement failed (which
    /// aborted the transaction), it throws `SavepointNeeded`: the engine runs the batch again with savepoints. When
    /// it returns, what it sent may not be answered yet: the next wait checks it (`settle`).
    func unguarded<T>(_ body: () throws -> T) throws -> T {
        try command(guarded: false, body)
    }

    private func command<T>(guarded: Bool, _ body: () throws -> T) throws -> T {
        guard held.savepointOpen == nil else { return try nestedSavepoint(body) }
        // What was sent before the command is not the command's to undo (unguarded, nothing is undone: its first
        // wait checks it).
        if guarded { try settle() }
        // Unguarded, the events of the commands before this one are still held: only this one's are its own.
        let heldBefore = held.mark
        let cacheBefore = held.cacheChanges.count
        held.questionsBeforeCommand = held.questions.count
        held.resolutionsBeforeCommand = held.resolutions.count
        held.savepointOpen = false
        held.commandFailed = false
        held.unguarded = !guarded
        defer {
            held.forgetAhead()
            held.asking = nil
            held.assumedNew = nil
            held.savepointOpen = nil
            held.savepointAnswer = nil
            held.unguarded = false
        }
        do {
            let result = try body()
            if guarded {
                try settle()
            } else {
                // Not waited for: a failure among them fails the batch at the next wait, and it runs again guarded.
                // Its events stay held, to go with the other commands' in one insert before the commit.
                held.unchecked = !held.inFlight.isEmpty
                if !held.isEmpty { held.eventsUnchecked = true }
            }
            return result
        } catch {
            held.truncate(to: heldBefore)
            // Undone, or the batch runs again: what the command staged for the cache is not stored.
            held.cacheChanges.removeSubrange(cacheBefore...)
            // Whatever the command sent is answered (or failed) before it is undone; the events of the commands
            // before it stay held.
            _ = try? settle(flushing: guarded)
            if guarded { try undoCommand(after: error) }
            // An ask refused after it took its question id for new may be the retry of one stored: it is answered
            // from the stored question, read in the batch run again guarded.
            if !guarded, !PostgresSession.isConnectionLoss(error),
                held.savepointOpen == true || held.commandFailed || held.assumedNew != nil
            {
                throw SavepointNeeded()
            }
            throw error
        }
    }

    private func undoCommand(after error: any Error) throws {
        if held.savepointOpen == true {
            guard (try? held.savepointAnswer?.wait()) != nil else {
                // Rolling back to "command" would undo the previous command instead.
                throw StoreUnavailable(
                    description: "a command's savepoint failed, after \(PostgresSession.reason(error))")
            }
            // A failed statement aborted the transaction: rolling back to the savepoint makes it usable again.
            try execute("ROLLBACK TO SAVEPOINT command")
        } else if held.commandFailed {
            // Only a read failed on the server (cancelled at its timeout): with no savepoint, the transaction is
            // over. The batch fails as on a lost connection; devices send its commands again.
            throw StoreUnavailable(
                description: "a read failed and ended the transaction: \(PostgresSession.reason(error))")
        }
    }

    /// A savepoint inside a command's, sent at once and released.
    private func nestedSavepoint<T>(_ body: () throws -> T) throws -> T {
        // The events held so far are sent before it, or rolling back to it would not undo them.
        try settle()
        try write("SAVEPOINT nested")
        let cacheBefore = held.cacheChanges.count
        do {
            let result = try body()
            try settle()
            try execute("RELEASE SAVEPOINT nested")
            return result
        } catch {
            held.clear()
            held.cacheChanges.removeSubrange(cacheBefore...)
            _ = try? settle()
            try execute("ROLLBACK TO SAVEPOINT nested")
            try execute("RELEASE SAVEPOINT nested")
            throw error
        }
    }

    /// Before a command's first write: sends its `SAVEPOINT` (without waiting for it), or only notes the write when
    /// the command runs unguarded.
    func openSavepoint() {
        held.forgetAhead()
        guard held.savepointOpen == false else { return }
        held.savepointOpen = true
        if !held.unguarded { held.savepointAnswer = send("SAVEPOINT command") }
    }

    /// Sends a statement without waiting for it; `settle` checks it.
    @discardableResult
    func send(_ query: PostgresQuery) -> StatementAnswer<PostgresQueryResult> {
        sendHeldQuestions()
        return sent(connection.send(query, logger: logger))
    }

    /// Sends a hot statement without waiting for it; `settle` checks it.
    @discardableResult
    func send(_ statement: some HotStatement) -> StatementAnswer<[PostgresRow]> {
        sendHeldQuestions()
        return sent(connection.send(statement, logger: logger))
    }

    @discardableResult
    func sent<T: Sendable>(_ answer: StatementAnswer<T>) -> StatementAnswer<T> {
        held.statements += 1
        held.inFlight.append { _ = try answer.wait() }
        return answer
    }

    /// Runs a statement and waits for it. A statement sent before it that failed is the cause of its failure
    /// (the transaction was aborted), so that failure is thrown.
    func waited(_ query: PostgresQuery) throws -> PostgresQueryResult {
        sendHeldQuestions()
        return try waited(connection.send(query, logger: logger))
    }

    /// Runs a hot statement and waits for its rows, as `waited(_:)` a query; a read sent ahead
    /// (`readAhead`) is not sent again.
    func waited(_ statement: some HotStatement) throws -> [PostgresRow] {
        if let read = held.ahead.removeValue(forKey: Self.key(of: statement)) {
            if let tail = held.aheadTail {
                // One wait for every read sent ahead: they are answered in order.
                held.aheadTail = nil
                held.waits += 1
                _ = try? tail.wait()
            }
            let rows = try waited(read.answer, sent: true)
            guard let part = read.part else { return rows }
            return try rows.filter { try $0.decode(Int32.self) == part }
        }
        sendHeldQuestions()
        return try waited(connection.send(statement, logger: logger))
    }

    /// Sends a read that the engine makes next (after the one it makes now) without waiting for it: its answer
    /// comes back with the current one's, and `waited(_:)` takes it instead of sending the read again.
    func readAhead(_ statement: some HotStatement) {
        let key = Self.key(of: statement)
        guard held.ahead[key] == nil else { return }
        sendHeldQuestions()
        let answer = sent(connection.send(statement, logger: logger))
        held.ahead[key] = HeldWrites.SentRead(answer: answer, part: nil)
        held.aheadTail = answer
    }

    /// Sends `combined`, one statement whose rows answer each of `reads` (those of part n the nth), without waiting
    /// for it: `waited(_:)` takes each read's rows from its answer instead of sending the read.
    func readAhead(_ combined: some HotStatement, answering reads: [HeldWrites.ReadAhead]) {
        let answer = sent(connection.send(combined, logger: logger))
        for (part, key) in reads.enumerated() {
            held.ahead[key] = HeldWrites.SentRead(answer: answer, part: Int32(part))
        }
        held.aheadTail = answer
    }

    static func key(of statement: some HotStatement) -> HeldWrites.ReadAhead {
        HeldWrites.ReadAhead(name: type(of: statement).name, bindings: statement.bindings)
    }

    private func waited<T: Sendable>(_ answer: StatementAnswer<T>, sent: Bool = false) throws -> T {
        // A read sent ahead was answered before the statement waited for after it, or with the last one sent ahead.
        if !sent {
            held.statements += 1
            held.waits += 1
            // Sent after every read sent ahead: once it is answered, so are they.
            held.aheadTail = nil
        }
        let result = Result { try answer.wait() }
        // A read of `event` sends the events held before it (`flush`); other statements leave them held.
        try settle(flushing: false)
        do {
            return try result.get()
        } catch {
            noteFailure()
            throw error
        }
    }

    /// A statement failed: inside a command with no savepoint yet, that ended the transaction.
    func noteFailure() {
        if held.savepointOpen != nil { held.commandFailed = true }
    }
}
#endif
