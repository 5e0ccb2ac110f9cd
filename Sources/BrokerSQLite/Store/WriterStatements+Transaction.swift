import BrokerCore
import GRDB
import GRDBSQLite

/// The write transaction's `BEGIN IMMEDIATE` and `COMMIT` on the writer's prepared statements: GRDB's `inTransaction`
/// prepares both anew at every transaction, and the parse was ~1.5–2.5% of the writer
/// (docs/decisions/0017-prepared-statements.md).
///
/// GRDB does not see these two statements, so GRDB transaction observers on the writer's connection would not be told
/// of the commit (the broker registers none, and the hot statements already run past GRDB); a write that needs them
/// uses GRDB's transactions. GRDB's refusal to run a statement once SQLite has rolled the transaction back by itself
/// is `ensureOpen`, which the writer runs before each command and before the commit.
extension WriterStatements {
    /// Runs `work` in an immediate transaction on the writer's connection and commits it. When `work` or the commit
    /// throws, rolls the transaction back and rethrows that first error, as GRDB's `inTransaction` does.
    func inTransaction<T>(_ db: Database, _ work: () throws -> T) throws -> T {
        try execute(.begin, db)
        do {
            let result = try work()
            try ensureOpen(db)
            try execute(.commit, db)
            return result
        } catch {
            // GRDB's rollback skips a transaction SQLite already ended, and ignores an interruption.
            try? db.rollback()
            throw error
        }
    }

    /// Throws `SQLITE_ABORT` once SQLite has rolled the writer's transaction back by itself (after `SQLITE_FULL`, an
    /// I/O error, `SQLITE_NOMEM`, an interruption): a further statement would run, and commit, on its own.
    func ensureOpen(_ db: Database) throws {
        guard let connection = db.sqliteConnection, sqlite3_get_autocommit(connection) == 0 else {
            throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted")
        }
    }
}
