import Foundation
import GRDB

/// The store's one SQLite database (WAL) and its append-only migrations: documents, folders, jobs.
///
/// SQLite is the source of truth for ids ↔ paths; the folder tree mirrors it.
public final class GatewayDatabase: Sendable {
    /// One pool per process; every access is a single `read {}` or `write {}` transaction.
    public let pool: DatabasePool

    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)  // the CLI and the server may write at the same time
        // Each reader is a queue that takes a thread of its own while it reads. Reads last
        // microseconds, so more readers than cores add threads under load and no throughput.
        configuration.maximumReaderCount = min(5, max(2, ProcessInfo.processInfo.activeProcessorCount))
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Reads map the file instead of copying each page in with a pread: a search reads
            // hundreds of pages of the full-text index, and a system call per page was most of
            // its time. Writes still go through the WAL; the map only serves reads.
            try db.execute(sql: "PRAGMA mmap_size = \(Self.mappedBytes)")
            // And keep more of them decoded per connection (8 MiB, not SQLite's 2).
            try db.execute(sql: "PRAGMA cache_size = -8192")
            // A write that fires the change journal's triggers keeps a statement journal: the
            // first image of every page it touches, to undo just that statement. SQLite writes it
            // to a temporary file once it passes 64 KiB, which a document's row and twelve
            // indexes do: two system calls a page. In memory it is a copy.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    /// How much of the file reads map: 1 GiB of address space, which costs memory only for the
    /// pages read (shared with the page cache the kernel keeps anyway).
    static let mappedBytes = 1 << 30

    /// A trivial read: throws when the database cannot answer.
    public func ping() async throws {
        _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    /// Migrations are append-only: never edit a shipped one, add the next.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-library") { db in
            try db.create(table: "folders") { t in
                t.primaryKey("id", .text)
                t.column("owner", .text).notNull()
                t.column("parent_id", .text).notNull()  // "" for the owner's root
                t.column("name", .text).notNull()
                t.column("path", .text).notNull()
                t.column("state", .text).notNull()
                t.column("path_before", .text)
                t.column("created_at", .datetime).notNull()
                t.column("updated_at", .datetime).notNull()
                t.uniqueKey(["owner", "parent_id", "name"])
                t.uniqueKey(["owner", "path"])
            }
            try db.create(index: "folders_pending", on: "folders", columns: ["state", "path_before"])

            try db.create(table: "documents") { t in
                t.primaryKey("id", .text)
                t.column("owner", .text).notNull()
                t.column("folder_id", .text).notNull()  // "" for the owner's root
                t.column("name", .text).notNull()
                t.column("size", .integer).notNull()
                t.column("sha256", .text).notNull()
                t.column("page_count", .integer).notNull()
                t.column("title", .text)
                t.column("author", .text)
                t.column("subject", .text)
                t.column("keywords", .text)
                t.column("creator", .text)
                t.column("producer", .text)
                t.column("pdf_created_at", .datetime)
                t.column("pdf_modified_at", .datetime)
                t.column("pdf_version", .text).notNull()
                t.column("page_width", .double).notNull()
                t.column("page_height", .double).notNull()
                t.column("encrypted", .boolean).notNull()
                t.column("linearized", .boolean).notNull()
                t.column("pdfa", .text)
                t.column("state", .text).notNull()
                t.column("path_before", .text)
                t.column("staged_path", .text)
                t.column("created_at", .datetime).notNull()
                t.column("updated_at", .datetime).notNull()
                t.uniqueKey(["owner", "folder_id", "name"])
            }
            try db.create(index: "documents_pending", on: "documents", columns: ["state", "path_before"])
            // Keyset pagination: one index per sort field, for one folder and for a whole owner.
            for (column, expression) in [
                ("name", "name COLLATE NOCASE"), ("created_at", "created_at"), ("updated_at", "updated_at"),
                ("size", "size"), ("page_count", "page_count"),
            ] {
                try db.execute(sql: "CREATE INDEX documents_folder_\(column) ON documents(owner, folder_id, \(expression), id)")
                try db.execute(sql: "CREATE INDEX documents_owner_\(column) ON documents(owner, \(expression), id)")
            }
        }
        migrator.registerMigration("v2-jobs") { db in
            try db.create(table: "jobs") { t in
                t.primaryKey("id", .text)
                t.column("owner", .text).notNull()
                t.column("type", .text).notNull()
                t.column("status", .text).notNull()
                t.column("not_before", .datetime)
                t.column("spec", .text).notNull()  // JobSpec as JSON: fixed at creation
                t.column("state", .text).notNull()  // JobStateMachine as JSON
                t.column("created_at", .datetime).notNull()
                t.column("updated_at", .datetime).notNull()
                t.column("revision", .integer).notNull()
            }
            try db.create(index: "jobs_due", on: "jobs", columns: ["status", "not_before", "created_at"])
            try db.create(index: "jobs_owner", on: "jobs", columns: ["owner", "created_at", "id"])
        }
        migrator.registerMigration("v3-api") { db in
            // API tokens: only the SHA-256 of the secret is kept.
            try db.create(table: "tokens") { t in
                t.primaryKey("id", .text)
                t.column("owner", .text).notNull()
                t.column("name", .text).notNull()
                t.column("secret_sha256", .text).notNull().unique()
                t.column("created_at", .datetime).notNull()
                t.column("revoked_at", .datetime)
            }
            // One row per (owner, Idempotency-Key): the request's hash and the job it created.
            try db.create(table: "idempotency_keys") { t in
                t.column("owner", .text).notNull()
                t.column("key", .text).notNull()
                t.column("request_sha256", .text).notNull()
                t.column("job_id", .text)  // NULL while the job is being created
                t.column("created_at", .datetime).notNull()
                t.primaryKey(["owner", "key"])
            }
            try db.create(index: "jobs_owner_status", on: "jobs", columns: ["owner", "status"])
        }
        migrator.registerMigration("v4-idempotency-expiry") { db in
            // Keys are forgotten after a day; this keeps the sweep an index range, not a scan.
            try db.create(index: "idempotency_keys_created_at", on: "idempotency_keys", columns: ["created_at"])
        }
        migrator.registerMigration("v5-job-deadline") { db in
            // Lets the engine find file jobs whose upload window closed with an index range.
            // Rows already stored stay NULL: they never expire by themselves.
            try db.alter(table: "jobs") { t in t.add(column: "deadline", .datetime) }
            try db.create(index: "jobs_status_deadline", on: "jobs", columns: ["status", "deadline"])
        }
        migrator.registerMigration("v6-webhook-outbox") { db in
            // Webhook deliveries still owed: written when a job ends, removed when its delivery
            // ends, so a restart resumes the retries instead of forgetting them.
            try db.create(table: "webhook_outbox") { t in
                t.primaryKey("message_id", .text)
                t.column("job_id", .text).notNull()
                t.column("url", .text).notNull()
                t.column("body", .blob).notNull()
                t.column("attempts", .integer).notNull()
                t.column("not_before", .datetime).notNull()
                t.column("expires_at", .datetime).notNull()
            }
        }
        migrator.registerMigration("v7-job-leases") { db in
            // The engine running a job and until when: set while PROCESSING, NULL otherwise.
            try db.alter(table: "jobs") { t in
                t.add(column: "lease_node", .text)
                t.add(column: "lease_expires", .datetime)
            }
            try db.create(index: "jobs_status_lease", on: "jobs", columns: ["status", "lease_expires"])
        }
        migrator.registerMigration("v8-webhook-claims") { db in
            // The node sending a delivery and until when; a lapsed claim is another node's to take.
            try db.alter(table: "webhook_outbox") { t in
                t.add(column: "claim_node", .text)
                t.add(column: "claim_expires", .datetime)
            }
        }
        migrator.registerMigration("v9-search") { db in
            // The full-text index (SearchSchema): tables, and a pending entry per document for the
            // backfill to read; until then documents are found by name and title.
            try SearchSchema.migrate(db)
        }
        migrator.registerMigration("v10-change-journal") { db in
            // Every change to the library in order, for clients that sync (ChangeJournalSchema).
            try ChangeJournalSchema.migrate(db)
        }
        migrator.registerMigration("v11-change-departures") { db in
            // Where items left, for WebDAV's sync-collection (ChangeJournalSchema.migrateDepartures).
            try ChangeJournalSchema.migrateDepartures(db)
        }
        migrator.registerMigration("v12-change-feed-index") { db in
            // The feed reads its columns from the index (ChangeJournalSchema.migrateFeedIndex).
            try ChangeJournalSchema.migrateFeedIndex(db)
        }
        migrator.registerMigration("v13-change-journal-visible-columns") { db in
            // Bookkeeping writes are not changes (ChangeJournalSchema.migrateVisibleColumns).
            try ChangeJournalSchema.migrateVisibleColumns(db)
        }
        migrator.registerMigration("v14-staged-path-index") { db in
            // Opening the store and fsck ask which files in `filing/` a row claims; without an
            // index that read every document row, and through the map every page of the file.
            try db.execute(sql: "CREATE INDEX documents_staged ON documents (staged_path) WHERE staged_path IS NOT NULL")
        }
        migrator.registerMigration("v15-document-warning") { db in
            // A PDF kept as it came although Poppler cannot read it whole says what it could not read.
            try db.execute(sql: "ALTER TABLE documents ADD COLUMN warning TEXT")
        }
        return migrator
    }
}
