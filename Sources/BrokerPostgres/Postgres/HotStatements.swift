#if PostgreSQL
import PostgresNIO

/// The statements of every batch, ask and answer (~80 µs of the server's CPU each when parsed and planned anew;
/// docs/decisions/0017-prepared-statements.md), prepared on each of the store's connections as it opens
/// (`PostgresSession.prepare`).
enum HotStatements {
    /// Every hot statement, in the order a new connection prepares them.
    static let all: [any HotStatement.Type] = [
        TransactionID.self, LockLeases.self, FenceLeases.self, QuestionByID.self, AskCount.self, Settings.self,
        ContactFlags.self, KnownHandles.self, PendingQuestion.self, AskReads.self, InsertQuestion.self,
        InsertPendingQuestion.self,
        InsertPendingQuestions.self, Resolve.self, ApprovedHandles.self,
        ChildRows.self, ResolveHeld.self, ScheduleReminder.self,
        RemoveReminder.self, AppendHistory.self, InsertHistory.self, AddKnownHandles.self, InsertEvents.self,
    ]

    struct TransactionID: HotStatement {
        static let sql = "SELECT txid_current()"
        let bindings: PostgresBindings
    }

    /// $1: the partitions (`integer[]`).
    struct LockLeases: HotStatement {
        static let sql = """
            SELECT partition_id, owner, epoch FROM partition_lease WHERE partition_id = ANY($1::integer[])
            ORDER BY partition_id FOR SHARE
            """
        let bindings: PostgresBindings
    }

    /// $1: the partitions (`integer[]`), $2: this broker, $3: the epochs it holds them at, in $1's order. Locks the
    /// leases as `LockLeases` does, and fails (division by zero), aborting the transaction, unless each is still held
    /// by $2 at its epoch: sent without waiting (`PartitionOwnership.admitAhead`), the commit then says whether it held.
    struct FenceLeases: HotStatement {
        static let sql = """
            SELECT 1 / (COUNT(*) FILTER (WHERE lease.owner = $2::text AND lease.epoch = held.epoch)
                = cardinality($1::integer[]))::integer
            FROM (SELECT partition_id, owner, epoch FROM partition_lease WHERE partition_id = ANY($1::integer[])
                ORDER BY partition_id FOR SHARE) AS lease
            JOIN unnest($1::integer[], $3::bigint[]) AS held(partition_id, epoch) USING (partition_id)
            """
        let bindings: PostgresBindings
    }

    /// $1: the question's id. Like every read of an ask, in the columns of `AskReads` (`AskReadRow`).
    struct QuestionByID: HotStatement {
        static let sql = """
            SELECT 0, asked, resolution, NULL::bigint, NULL::integer, NULL::text, NULL::boolean FROM question
            WHERE id = $1::uuid
            """
        let bindings: PostgresBindings
    }

    /// $1: the child, $2: since (ms), $3: the limit. Counting stops at the limit, as SQLite's does.
    struct AskCount: HotStatement {
        static let sql = """
            SELECT 1, NULL::bytea, NULL::bytea, COUNT(*), NULL::integer, NULL::text, NULL::boolean
            FROM (SELECT 1 FROM question WHERE child_id = $1::text AND asked_at >= $2::bigint LIMIT $3::bigint) AS asked
            """
        let bindings: PostgresBindings
    }

    /// $1: the child.
    struct Settings: HotStatement {
        static let sql = """
            SELECT 2, settings, NULL::bytea, NULL::bigint, NULL::integer, NULL::text, NULL::boolean FROM child_settings
            WHERE member_id = $1::text
            """
        let bindings: PostgresBindings
    }

    /// $1: the child, $2: the handles' values (`value = ANY`, the kinds compared by the caller: planned as one
    /// equality, where a row-wise `IN (unnest …)` cost twice that).
    struct ContactFlags: HotStatement {
        static let sql = """
            SELECT 3, NULL::bytea, NULL::bytea, NULL::bigint, kind, value, downtime FROM contact
            WHERE child_id = $1::text AND value = ANY($2::text[])
            """
        let bindings: PostgresBindings
    }

    /// $1: the child, $2: the handles' values (as `ContactFlags`).
    struct KnownHandles: HotStatement {
        static let sql = """
            SELECT 4, NULL::bytea, NULL::bytea, NULL::bigint, kind, value, NULL::boolean FROM known_handle
            WHERE child_id = $1::text AND value = ANY($2::text[])
            """
        let bindings: PostgresBindings
    }

    /// $1: the child, $2: the handles' key, $3: now (ms). `status = 0` written out, so that even a generic plan
    /// can use the partial index `question_pending`.
    struct PendingQuestion: HotStatement {
        static let sql = """
            SELECT 5, asked, resolution, n, NULL::integer, NULL::text, NULL::boolean FROM question
            WHERE child_id = $1::text AND handles_key = $2::text AND status = 0
            AND (expires_at IS NULL OR expires_at > $3::bigint) ORDER BY n
            """
        let bindings: PostgresBindings
    }

    /// The six reads above in one statement (one round trip, one answer, where there were six), each row marked by
    /// its read's number. $1: the question's id, $2: the child, $3: since (ms), $4: the limit, $5: the handles'
    /// values, $6: the handles' key, $7: now (ms).
    struct AskReads: HotStatement {
        static let sql = """
            SELECT 0, asked, resolution, NULL::bigint, NULL::integer, NULL::text, NULL::boolean FROM question
            WHERE id = $1::uuid
            UNION ALL
            SELECT 1, NULL::bytea, NULL::bytea, COUNT(*), NULL::integer, NULL::text, NULL::boolean
            FROM (SELECT 1 FROM question WHERE child_id = $2::text AND asked_at >= $3::bigint LIMIT $4::bigint) AS asked
            UNION ALL
            SELECT 2, settings, NULL::bytea, NULL::bigint, NULL::integer, NULL::text, NULL::boolean FROM child_settings
            WHERE member_id = $2::text
            UNION ALL
            SELECT 3, NULL::bytea, NULL::bytea, NULL::bigint, kind, value, downtime FROM contact
            WHERE child_id = $2::text AND value = ANY($5::text[])
            UNION ALL
            SELECT 4, NULL::bytea, NULL::bytea, NULL::bigint, kind, value, NULL::boolean FROM known_handle
            WHERE child_id = $2::text AND value = ANY($5::text[])
            UNION ALL
            SELECT 5, asked, resolution, n, NULL::integer, NULL::text, NULL::boolean FROM question
            WHERE child_id = $2::text AND handles_key = $6::text AND status = 0
            AND (expires_at IS NULL OR expires_at > $7::bigint)
            ORDER BY 1, 4
            """
        let bindings: PostgresBindings
    }

    /// Pending questions held (`HeldQuestions`) inserted with their reminders, as `WITH` parts named `asked` and
    /// `reminded`: $first … $first + 6: ids (text), children, handles' keys, the encoded questions, expiries (ms, -1
    /// for none), asked at (ms), reminders (ms, -1 for none). Both run whatever the query after them reads.
    static func insertingQuestions(from first: Int) -> String {
        let p = (0..<7).map { "$\(first + $0)" }
        return """
            WITH asked AS (
                INSERT INTO question (id, child_id, handles_key, asked, expires_at, status, resolution, asked_at)
                SELECT id::uuid, child, handles, asked, NULLIF(expires, -1), 0, NULL, at
                FROM unnest(\(p[0])::text[], \(p[1])::text[], \(p[2])::text[], \(p[3])::bytea[], \(p[4])::bigint[],
                    \(p[5])::bigint[]) WITH ORDINALITY AS q (id, child, handles, asked, expires, at, n)
                ORDER BY n
            ), reminded AS (
                INSERT INTO question_reminder (question_id, remind_at)
                SELECT id::uuid, at FROM unnest(\(p[0])::text[], \(p[6])::bigint[]) AS r (id, at) WHERE at >= 0
                ON CONFLICT (question_id) DO UPDATE SET remind_at = excluded.remind_at
            )

            """
    }

    /// The pending questions held alone ($1 … $7, `insertingQuestions`).
    struct InsertPendingQuestions: HotStatement {
        static let sql = insertingQuestions(from: 1) + "SELECT 1"
        let bindings: PostgresBindings
    }

    /// $1 … $8: id, child, handles' key, the encoded question, expiry (ms), status, resolution, asked at (ms).
    struct InsertQuestion: HotStatement {
        static let sql = """
            INSERT INTO question (id, child_id, handles_key, asked, expires_at, status, resolution, asked_at)
            VALUES ($1::uuid, $2::text, $3::text, $4::bytea, $5::bigint, $6::integer, $7::bytea, $8::bigint)
            """
        let bindings: PostgresBindings
    }

    /// `InsertQuestion` and its reminder (`ScheduleReminder`, none when $9 is NULL) in one statement: $1 … $8 as
    /// `InsertQuestion`'s, $9: when to remind (ms). The insert in `WITH` runs whatever the reminder's `WHERE`.
    struct InsertPendingQuestion: HotStatement {
        static let sql = """
            WITH asked AS (
                INSERT INTO question (id, child_id, handles_key, asked, expires_at, status, resolution, asked_at)
                VALUES ($1::uuid, $2::text, $3::text, $4::bytea, $5::bigint, $6::integer, $7::bytea, $8::bigint)
                RETURNING id
            )
            INSERT INTO question_reminder (question_id, remind_at) SELECT id, $9::bigint FROM asked
            WHERE $9::bigint IS NOT NULL
            ON CONFLICT (question_id) DO UPDATE SET remind_at = excluded.remind_at
            """
        let bindings: PostgresBindings
    }

    /// $1: the encoded resolution, $2: the question's id.
    struct Resolve: HotStatement {
        static let sql = "UPDATE question SET status = 1, resolution = $1::bytea WHERE id = $2::uuid"
        let bindings: PostgresBindings
    }

    /// The resolutions an owner held (`HeldResolutions`) and the handles they approved, in one statement: $1: the
    /// questions' ids (text), $2: the encoded resolutions, $3 … $6: the approved handles' children, kinds, values and
    /// questions (text). The update in `WITH` runs although nothing refers to it. `id = ANY` (the primary key's
    /// index), each row's resolution found by its id's position: an `UPDATE … FROM unnest` join took 4.3 ms a
    /// statement on the server, this 0.9 ms (`pg-statements.sh`, ~16 resolutions a statement, ~50,000 questions).
    struct ResolveHeld: HotStatement {
        static let sql = """
            WITH resolved AS (
                UPDATE question SET status = 1, resolution = ($2::bytea[])[array_position($1::text[]::uuid[], id)]
                WHERE id = ANY($1::text[]::uuid[])
            )
            INSERT INTO known_handle (child_id, kind, value, question_id)
            SELECT child, kind, value, question::uuid
            FROM unnest($3::text[], $4::integer[], $5::text[], $6::text[]) AS h (child, kind, value, question)
            ON CONFLICT DO NOTHING
            """
        let bindings: PostgresBindings
    }

    /// $1: the child. All of its approved handles, for the owner cache (once per child per adoption).
    struct ApprovedHandles: HotStatement {
        static let sql = "SELECT kind, value FROM known_handle WHERE child_id = $1::text"
        let bindings: PostgresBindings
    }

    /// Everything a partition's owner keeps of a child for its asks (`CachedChild`) and its approved handles, read
    /// once per child per adoption, in the columns of `AskReads` (`AskReadRow`): part 1 the time (ms) each question
    /// asked at or after $2 was asked, 2 the settings, 3 every contact, 4 every approved handle, 5 every pending
    /// question (expired or not) in the order stored. $1: the child, $2: since (ms).
    struct ChildRows: HotStatement {
        static let sql = """
            SELECT 1, NULL::bytea, NULL::bytea, asked_at, NULL::integer, NULL::text, NULL::boolean FROM question
            WHERE child_id = $1::text AND asked_at >= $2::bigint
            UNION ALL
            SELECT 2, settings, NULL::bytea, NULL::bigint, NULL::integer, NULL::text, NULL::boolean FROM child_settings
            WHERE member_id = $1::text
            UNION ALL
            SELECT 3, NULL::bytea, NULL::bytea, NULL::bigint, kind, value, downtime FROM contact WHERE child_id = $1::text
            UNION ALL
            SELECT 4, NULL::bytea, NULL::bytea, NULL::bigint, kind, value, NULL::boolean FROM known_handle
            WHERE child_id = $1::text
            UNION ALL
            SELECT 5, asked, resolution, n, NULL::integer, NULL::text, NULL::boolean FROM question
            WHERE child_id = $1::text AND status = 0
            ORDER BY 1, 4
            """
        let bindings: PostgresBindings
    }

    /// $1: the question's id, $2: when (ms).
    struct ScheduleReminder: HotStatement {
        static let sql = """
            INSERT INTO question_reminder (question_id, remind_at) VALUES ($1::uuid, $2::bigint)
            ON CONFLICT (question_id) DO UPDATE SET remind_at = excluded.remind_at
            """
        let bindings: PostgresBindings
    }

    /// $1: the question's id.
    struct RemoveReminder: HotStatement {
        static let sql = "DELETE FROM question_reminder WHERE question_id = $1::uuid"
        let bindings: PostgresBindings
    }

    /// $1: the family, $2: the child, $3: recorded at (ms), $4: the encoded entry.
    struct AppendHistory: HotStatement {
        static let sql = """
            INSERT INTO history (family_id, child_id, recorded_at, entry)
            VALUES ($1::text, $2::text, $3::bigint, $4::bytea) RETURNING id
            """
        let bindings: PostgresBindings
    }

    /// History entries whose ids are not needed, in one insert: $1: families, $2: children, $3: recorded at (ms),
    /// $4: the encoded entries, one entry per position. Ids are taken in the arrays' order.
    struct InsertHistory: HotStatement {
        static let sql = """
            INSERT INTO history (family_id, child_id, recorded_at, entry)
            SELECT family, child, recorded, entry
            FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bytea[])
                WITH ORDINALITY AS h (family, child, recorded, entry, n)
            ORDER BY n
            """
        let bindings: PostgresBindings
    }

    /// $1: the child, $2: the approving question (or NULL), $3: the kinds, $4: the values.
    struct AddKnownHandles: HotStatement {
        static let sql = """
            INSERT INTO known_handle (child_id, kind, value, question_id)
            SELECT $1::text, kind, value, $2::uuid FROM unnest($3::integer[], $4::text[]) AS h (kind, value)
            ON CONFLICT DO NOTHING RETURNING kind, value
            """
        let bindings: PostgresBindings
    }

    /// $1: members, $2: sequences, $3: bodies, one event per position.
    struct InsertEvents: HotStatement {
        static let sql = """
            INSERT INTO event (member_id, seq, body)
            SELECT * FROM unnest($1::text[], $2::bigint[], $3::bytea[])
            """
        let bindings: PostgresBindings
    }
}
#endif
