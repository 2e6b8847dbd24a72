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
    ]

    /// An arbitrary constant: the advisory lock every node takes while migrating.
    static let lockKey = 0x7064_6667  // "pdfg"

    static func run(on database: PostgresDatabase) throws {
        try database.transaction { session in
            try session.query("SELECT pg_advisory_xact_lock(\(lockKey))")
            try session.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
            let applied = Set(try session.query("SELECT name FROM schema_migrations").map { try $0.decode(String.self) })
            for migration in all where !applied.contains(migration.name) {
                for statement in migration.statements { try session.execute(statement) }
                try session.query("INSERT INTO schema_migrations (name) VALUES (\(migration.name))")
            }
        }
    }
}
