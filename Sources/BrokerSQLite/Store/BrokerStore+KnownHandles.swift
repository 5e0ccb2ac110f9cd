import Foundation
import GRDB

/// A child's approved handles in two parts (migration `v8-known-handle-recent`;
/// docs/decisions/0014-recent-parts-and-commit-order-keys.md).
///
/// `known_handle` is keyed by (child, kind, value): one new row per approval dirtied a page per child a commit
/// touched, as the history's index by child did. New approvals now go to `known_handle_recent`, small enough that a
/// commit rewrites few of its pages; once it holds `recentKnownHandleLimit` rows the next write transaction moves them
/// all into `known_handle`, so a child's page there is dirtied once per move. A handle is in at most one part: an
/// approval is added to the recent part only when `known_handle` does not hold it (one statement,
/// `WriterStatements.Query.addKnownHandle`), and the recent part's own key refuses it twice. Lookups and removals
/// look at both parts.
extension BrokerStore {
    /// Approvals kept in `known_handle_recent` before they move to `known_handle`.
    static let recentKnownHandleLimit = 4096

    static func registerKnownHandleRecentMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v8-known-handle-recent") { db in
            try db.execute(
                sql: """
                    CREATE TABLE known_handle_recent (
                        child_id TEXT NOT NULL,
                        kind INTEGER NOT NULL,
                        value TEXT NOT NULL,
                        question_id BLOB,
                        PRIMARY KEY (child_id, kind, value)
                    ) WITHOUT ROWID;
                    """)
        }
    }

    /// Moves the recent approvals into `known_handle` once there are at least `limit`. Run at the start of a write
    /// transaction, so the move commits with it (or not at all).
    static func settleRecentKnownHandles(atLeast limit: Int = recentKnownHandleLimit, in db: Database) throws {
        let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM known_handle_recent")) ?? 0
        guard count > 0, count >= limit else { return }
        // No handle is in both parts, so a conflict here would be a broken store: it fails the move, loudly.
        try db.execute(
            sql: """
                INSERT INTO known_handle (child_id, kind, value, question_id)
                SELECT child_id, kind, value, question_id FROM known_handle_recent;
                DELETE FROM known_handle_recent;
                """)
    }
}
