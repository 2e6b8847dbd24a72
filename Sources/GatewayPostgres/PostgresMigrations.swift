import PostgresNIO

/// The PostgreSQL schema, as append-only migrations: a migration once released is never
/// edited; a change is a new one. Every node runs them at start; an advisory lock makes
/// concurrent starts take turns, and `schema_migrations` makes each run once.
enum PostgresMigrations {
    /// Names are stable forever; statements run in order, in one transaction per migration.
    static let all: [(name: String, statements: [String])] = [
        (
            "v1-jobs",
            [
                """
                CREATE TABLE jobs (
                    id uuid PRIMARY KEY,
                    owner text NOT NULL,
                    type text NOT NULL,
                    status text NOT NULL,
                    not_before timestamptz,
                    deadline timestamptz,
                    spec text NOT NULL,
                    state text NOT NULL,
                    created_at timestamptz NOT NULL,
                    updated_at timestamptz NOT NULL,
                    revision integer NOT NULL
                )
                """,
                // The scheduler's due jobs, an owner's list (newest first) and unfinished count,
                // and the jobs whose deadline passed: each an index range.
                "CREATE INDEX jobs_due ON jobs (status, not_before, created_at)",
                "CREATE INDEX jobs_owner ON jobs (owner, created_at, id)",
                "CREATE INDEX jobs_owner_status ON jobs (owner, status)",
                "CREATE INDEX jobs_status_deadline ON jobs (status, deadline)",
            ]
        ),
        (
            "v1-idempotency-keys",
            [
                """
                CREATE TABLE idempotency_keys (
                    owner text NOT NULL,
                    key text NOT NULL,
                    request_sha256 text NOT NULL,
                    job_id uuid,
                    created_at timestamptz NOT NULL,
                    PRIMARY KEY (owner, key)
                )
                """,
                "CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at)",
            ]
        ),
        (
            "v2-job-leases",
            [
                // The engine running a job and until when: set while PROCESSING, NULL otherwise.
                "ALTER TABLE jobs ADD COLUMN lease_node text, ADD COLUMN lease_expires timestamptz",
                "CREATE INDEX jobs_status_lease ON jobs (status, lease_expires)",
            ]
        ),
        (
            "v3-library",
            [
                // Names and paths compare byte by byte, as in SQLite: `a` is not `A`, and every
                // path under `A` sorts between `A/` and `A0`.
                """
                CREATE TABLE folders (
                    id text PRIMARY KEY,
                    owner text COLLATE "C" NOT NULL,
                    parent_id text NOT NULL,
                    name text COLLATE "C" NOT NULL,
                    path text COLLATE "C" NOT NULL,
                    state text NOT NULL,
                    path_before text,
                    created_at timestamptz NOT NULL,
                    updated_at timestamptz NOT NULL,
                    UNIQUE (owner, parent_id, name),
                    UNIQUE (owner, path)
                )
                """,
                "CREATE INDEX folders_pending ON folders (state, path_before)",
                """
                CREATE TABLE documents (
                    id text PRIMARY KEY,
                    owner text COLLATE "C" NOT NULL,
                    folder_id text NOT NULL,
                    name text COLLATE "C" NOT NULL,
                    size bigint NOT NULL,
                    sha256 text NOT NULL,
                    page_count bigint NOT NULL,
                    title text,
                    author text,
                    subject text,
                    keywords text,
                    creator text,
                    producer text,
                    pdf_created_at timestamptz,
                    pdf_modified_at timestamptz,
                    pdf_version text NOT NULL,
                    page_width double precision NOT NULL,
                    page_height double precision NOT NULL,
                    encrypted boolean NOT NULL,
                    linearized boolean NOT NULL,
                    pdfa text,
                    state text NOT NULL,
                    path_before text,
                    staged_path text,
                    created_at timestamptz NOT NULL,
                    updated_at timestamptz NOT NULL,
                    UNIQUE (owner, folder_id, name)
                )
                """,
                "CREATE INDEX documents_pending ON documents (state, path_before)",
                // Keyset pagination: one index per sort field, for one folder and for a whole
                // owner. Names sort with ASCII letters folded, like SQLite's NOCASE.
            ]
                + [
                    ("name", "(\(PostgresLibraryCatalog.foldedName("name")))"), ("created_at", "created_at"), ("updated_at", "updated_at"),
                    ("size", "size"), ("page_count", "page_count"),
                ].flatMap { column, expression in
                    [
                        "CREATE INDEX documents_folder_\(column) ON documents (owner, folder_id, \(expression), id)",
                        "CREATE INDEX documents_owner_\(column) ON documents (owner, \(expression), id)",
                    ]
                }
        ),
        (
            "v4-tokens-webhooks",
            [
                """
                CREATE TABLE tokens (
                    id text PRIMARY KEY,
                    owner text NOT NULL,
                    name text NOT NULL,
                    secret_sha256 text NOT NULL UNIQUE,
                    created_at timestamptz NOT NULL,
                    revoked_at timestamptz
                )
                """,
                """
                CREATE TABLE webhook_outbox (
                    message_id text PRIMARY KEY,
                    job_id uuid NOT NULL,
                    url text NOT NULL,
                    body bytea NOT NULL,
                    attempts integer NOT NULL,
                    not_before timestamptz NOT NULL,
                    expires_at timestamptz NOT NULL,
                    claim_node text,
                    claim_expires timestamptz
                )
                """,
                "CREATE INDEX webhook_outbox_claim ON webhook_outbox (claim_expires)",
            ]
        ),
        (
            "v5-creation-buckets",
            [
                // One token bucket per owner: the creation rate every node shares.
                "CREATE TABLE creation_buckets (owner text PRIMARY KEY, tokens double precision NOT NULL, updated_at timestamptz NOT NULL)"
            ]
        ),
        (
            "v6-job-row-version",
            [
                // Moved by every write of a job row: an update writes back only over the version
                // it read (optimistic), instead of holding a row lock across round trips.
                "ALTER TABLE jobs ADD COLUMN row_version bigint NOT NULL DEFAULT 0"
            ]
        ),
        ("v7-search", PostgresSearchSchema.migration),
        ("v8-change-journal", PostgresChangeJournalSchema.migration),
        ("v9-change-departures", PostgresChangeJournalSchema.departures),
        ("v10-change-journal-visible-columns", PostgresChangeJournalSchema.visibleColumns),
        (
            "v11-staged-path-index",
            // A start and fsck ask which staged files a row claims: a few rows, not a scan.
            ["CREATE INDEX documents_staged ON documents (staged_path) WHERE staged_path IS NOT NULL"]
        ),
        (
            "v12-server-secrets",
            // The keys that sign URLs and webhooks, one set for every node: nodes with documents
            // in a bucket share no folder to keep them in.
            ["CREATE TABLE server_secrets (name text PRIMARY KEY, value text NOT NULL)"]
        ),
        (
            "v13-document-warning",
            // A PDF kept as it came although Poppler cannot read it whole says what it could not read.
            ["ALTER TABLE documents ADD COLUMN warning text"]
        ),
    ]

    /// An arbitrary constant: the advisory lock every node takes while migrating.
    static let lockKey = 0x7064_6667  // "pdfg"

    /// Runs what `session` has not applied yet, in one transaction under the migration lock.
    static func run(in session: PostgresSession) async throws {
        try await session.execute("BEGIN")
        do {
            try await session.query("SELECT pg_advisory_xact_lock(\(lockKey))")
            try await session.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            let applied = Set(try await session.query("SELECT name FROM schema_migrations").map { try $0.decode(String.self) })
            for migration in all where !applied.contains(migration.name) {
                for statement in migration.statements { try await session.execute(statement) }
                try await session.query("INSERT INTO schema_migrations (name) VALUES (\(migration.name))")
            }
            try await session.execute("COMMIT")
        } catch {
            try? await session.execute("ROLLBACK")
            throw error
        }
    }
}
