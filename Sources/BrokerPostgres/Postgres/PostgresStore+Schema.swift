#if PostgreSQL
import Foundation
import Logging
import PostgresNIO

extension PostgresStore {
    /// The database holds a schema newer than this broker knows: a newer broker migrated it.
    public struct SchemaTooNew: Error, CustomStringConvertible, Sendable {
        public var url: PostgresURL
        public var found: Int
        public var known: Int

        public var description: String {
            """
            the database \(url) has schema version \(found), newer than this broker's \(known): \
            it was migrated by a newer family-broker; run that version (or a newer one) against it
            """
        }
    }

    /// The schema, one step per version: a step runs once, in a transaction with its version's row.
    static let migrations: [(version: Int, sql: String)] = [
        (1, schemaV1), (2, schemaV2Reminders), (3, clusterSchema), (4, schemaV4History),
    ]

    package static var schemaVersion: Int { migrations.map(\.version).max() ?? 0 }

    /// Brings the schema up to `schemaVersion` under an advisory lock (brokers starting together take turns).
    static func migrate(_ connection: PostgresConnection, url: PostgresURL, logger: Logger) throws {
        func run(_ sql: String) throws -> [PostgresRow] {
            try connection.result(of: PostgresQuery(unsafeSQL: sql), logger: logger).rows
        }
        _ = try run("BEGIN")
        do {
            _ = try run("SELECT pg_advisory_xact_lock(\(migrationLock))")
            _ = try run(
                """
                CREATE TABLE IF NOT EXISTS hearth_schema (version bigint PRIMARY KEY, applied_at timestamptz NOT NULL)
                """)
            let found = try run("SELECT COALESCE(MAX(version), 0) FROM hearth_schema").first?.decode(Int.self) ?? 0
            if found > schemaVersion { throw SchemaTooNew(url: url, found: found, known: schemaVersion) }
            for step in migrations where step.version > found {
                // One statement at a time: postgres-nio sends each as an extended-protocol query.
                for statement in step.sql.split(separator: ";") where !statement.allSatisfy(\.isWhitespace) {
                    _ = try run(String(statement))
                }
                _ = try run("INSERT INTO hearth_schema (version, applied_at) VALUES (\(step.version), now())")
                logger.info("store migrated", metadata: ["url": "\(url)", "version": "\(step.version)"])
            }
            _ = try run("COMMIT")
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
    }

    /// The key of the advisory lock migrations hold ("hearth" in ASCII).
    static let migrationLock: Int64 = 0x6865_6172_7468

    /// The SQLite store's tables (`BrokerStore.migrator`, every version), in PostgreSQL's types. `n` orders
    /// questions asked at the same millisecond as SQLite's rowid does.
    static let schemaV1 = """
        CREATE TABLE question (
            id uuid PRIMARY KEY,
            n bigserial NOT NULL,
            child_id text NOT NULL,
            handles_key text NOT NULL,
            asked bytea NOT NULL,
            expires_at bigint,
            status integer NOT NULL,
            resolution bytea,
            asked_at bigint NOT NULL DEFAULT 0
        );
        CREATE INDEX question_pending ON question (child_id, handles_key) WHERE status = 0;
        CREATE INDEX question_by_child_time ON question (child_id, asked_at, n);
        CREATE INDEX question_expiring ON question (expires_at, n) WHERE status = 0 AND expires_at IS NOT NULL;
        CREATE TABLE known_handle (
            child_id text NOT NULL,
            kind integer NOT NULL,
            value text NOT NULL,
            question_id uuid,
            PRIMARY KEY (child_id, kind, value)
        );
        CREATE TABLE event (
            member_id text NOT NULL,
            seq bigint NOT NULL,
            body bytea NOT NULL,
            PRIMARY KEY (member_id, seq)
        );
        CREATE TABLE family_entry (id text PRIMARY KEY, entry bytea NOT NULL, source_hash text);
        CREATE TABLE revoked_key (
            public_key text PRIMARY KEY, device_id text NOT NULL, member_id text NOT NULL, revoked_at bigint NOT NULL
        );
        CREATE TABLE child_settings (member_id text PRIMARY KEY, settings bytea NOT NULL);
        CREATE TABLE contact (
            child_id text NOT NULL,
            kind integer NOT NULL,
            value text NOT NULL,
            downtime boolean NOT NULL,
            PRIMARY KEY (child_id, kind, value)
        );
        CREATE TABLE passcode (
            member_id text PRIMARY KEY, hash text NOT NULL, failures bigint NOT NULL DEFAULT 0,
            locked_until bigint NOT NULL DEFAULT 0
        );
        CREATE TABLE age_sharing (
            member_id text PRIMARY KEY, setting integer NOT NULL, set_by text NOT NULL, set_at bigint NOT NULL
        );
        CREATE TABLE age_cache (
            member_id text NOT NULL,
            app text NOT NULL,
            first_day text NOT NULL,
            period_day text NOT NULL,
            gates text NOT NULL,
            answer bytea NOT NULL,
            next_review bigint NOT NULL,
            PRIMARY KEY (member_id, app)
        );
        CREATE INDEX age_cache_review ON age_cache (next_review);
        CREATE TABLE age_prompt (
            id uuid PRIMARY KEY,
            member_id text NOT NULL,
            app text NOT NULL,
            prompt bytea NOT NULL,
            expires_at bigint NOT NULL,
            status integer NOT NULL
        );
        CREATE INDEX age_prompt_open ON age_prompt (expires_at) WHERE status = 0;
        CREATE INDEX age_prompt_member ON age_prompt (member_id, app) WHERE status = 0;
        """
}
#endif
