import Foundation
import GatewayJobModel
import PostgresNIO

/// Jobs in PostgreSQL, for gateways that share one database. The same rows as `SQLiteJobStore`:
/// the state machine whole as JSON, with `status`, `not_before` and `deadline` copied out
/// beside it for the indexes.
public final class PostgresJobStore: JobStore {
    let database: PostgresDatabase
    /// What this process last wrote of each job it runs: an update's starting point.
    let memo = JobVersionMemo()

    public init(database: PostgresDatabase) {
        self.database = database
    }

    /// PostgreSQL reads committed data, so two inserts could each count the owner's jobs before
    /// the other commits: an advisory lock on the owner makes its inserts take turns, on every
    /// node. Other owners' inserts do not wait. Without a limit the insert is one statement.
    public func insert(_ job: Job, activeLimit: Int?) async throws {
        let row = try JobRow(job)
        let insert: PostgresQuery = """
            INSERT INTO jobs (id, owner, type, status, not_before, deadline, spec, state, created_at, updated_at, revision,
                              lease_node, lease_expires)
            VALUES (\(row.id), \(row.owner), \(row.type), \(row.status), \(row.notBefore), \(row.deadline), \(row.spec), \(row.state),
                    \(row.createdAt), \(row.updatedAt), \(row.revision), \(row.leaseNode), \(row.leaseExpires))
            """
        if let activeLimit {
            try await database.transaction { session in
                try await session.query("SELECT pg_advisory_xact_lock(\(Self.ownerLockSpace), hashtext(\(job.owner)))")
                let active = try await Self.activeCount(owner: job.owner, in: session)
                if active >= activeLimit { throw ActiveJobLimitReached(active: active, limit: activeLimit) }
                try await session.query(insert)
            }
        } else {
            try await database.query(insert)
        }
        memo.wrote(JobRow.asStored(job), version: 0)
    }

    /// The first key of the owner advisory locks: keeps them apart from any other lock.
    static let ownerLockSpace: Int32 = 0x6A6F_6273  // "jobs"

    /// Every read of one job, the engine's and each client poll's: prepared once per connection.
    struct JobByID: PostgresPreparedStatement {
        static let name = "pdfgate_job_by_id"
        static let sql = "SELECT \(JobRow.columns) FROM jobs WHERE id = $1"
        typealias Row = PostgresRow

        var id: UUID

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(id)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
    }

    public func job(id: UUID) async throws -> Job? {
        try await database.query(JobByID(id: id)).first.map(JobRow.job)
    }

    public func jobs(ids: [UUID]) async throws -> [Job] {
        guard !ids.isEmpty else { return [] }
        return try await database.query("SELECT \(unescaped: JobRow.columns) FROM jobs WHERE id = ANY(\(ids))").map(JobRow.job)
    }

    /// Change and write back only over the `row_version` the change started from, else again
    /// from a fresh read: the same outcome as `SELECT … FOR UPDATE` when two nodes change one
    /// job at once, without holding a lock across round trips. The start is what this process
    /// last wrote of the job (`memo`) when it has that, so a job's own node changes it in one
    /// round trip; a stale start only costs the failed write and a read. A change that refuses
    /// a remembered job is asked again on the stored one before its refusal counts.
    @discardableResult
    public func update(id: UUID, _ change: @Sendable (inout Job) throws -> Void) async throws -> Job {
        var start = memo[id]
        while true {
            let current: JobVersionMemo.Entry
            if let start {
                current = start
            } else {
                guard let row = try await database.query("SELECT \(unescaped: JobRow.columns), row_version FROM jobs WHERE id = \(id)").first else {
                    memo.forget(id)
                    throw JobStoreError(code: "job_not_found", message: "no job with id \(id.lowercased)")
                }
                current = .init(job: try JobRow.job(row), version: try row.makeRandomAccess()[9].decode(Int64.self))
            }
            var job = current.job
            do {
                try change(&job)
            } catch {
                guard start != nil else { throw error }
                start = nil
                continue
            }
            if let version = try await database.withConnection({ [job] in try await Self.write(job, in: $0, ifVersion: current.version) }) {
                memo.wrote(JobRow.asStored(job), version: version)
                return job
            }
            start = nil
        }
    }

    /// Writes what a job's life changes: its status, state, times and lease; moves `row_version`.
    /// With `ifVersion`, only when the row still has that version. Answers the row's new
    /// version, nil when it did not write.
    private static func write(_ job: Job, in session: PostgresSession, ifVersion version: Int64? = nil) async throws -> Int64? {
        let row = try JobRow(job)
        return try await session.query(
            """
            UPDATE jobs SET status = \(row.status), not_before = \(row.notBefore), deadline = \(row.deadline), state = \(row.state),
                updated_at = \(row.updatedAt), revision = \(row.revision), lease_node = \(row.leaseNode), lease_expires = \(row.leaseExpires),
                row_version = row_version + 1
            WHERE id = \(row.id) AND (\(version)::int8 IS NULL OR row_version = \(version))
            RETURNING row_version
            """
        ).first?.decode(Int64.self)
    }

    /// `FOR UPDATE SKIP LOCKED`: engines claiming at once each take different jobs, none waits
    /// for another's transaction.
    public func claimDue(
        now: Date,
        types: Set<JobType>,
        limit: Int,
        lease: JobLease,
        _ start: @escaping @Sendable (inout Job) throws -> Void
    ) async throws -> [Job] {
        guard !types.isEmpty, limit > 0 else { return [] }
        let claimed = try await database.transaction { session in
            let rows = try await session.query(
                """
                SELECT \(unescaped: JobRow.columns) FROM jobs
                WHERE status = \(JobStatus.queued.rawValue) AND type = ANY(\(types.map(\.rawValue).sorted()))
                  AND (not_before IS NULL OR not_before <= \(now))
                ORDER BY created_at LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
                """
            )
            var written: [(job: Job, version: Int64)] = []
            for row in rows {
                var job = try JobRow.job(row)
                do {
                    try start(&job)
                } catch {
                    continue
                }
                job.lease = lease
                if let version = try await Self.write(job, in: session) { written.append((job, version)) }
            }
            return written
        }
        // Remembered once committed: a rolled-back claim wrote nothing.
        for (job, version) in claimed { memo.wrote(JobRow.asStored(job), version: version) }
        return claimed.map(\.job)
    }

    public func renewLeases(_ ids: [UUID], lease: JobLease) async throws -> Set<UUID> {
        guard !ids.isEmpty else { return [] }
        let rows = try await database.query(
            """
            UPDATE jobs SET lease_expires = \(lease.expires), row_version = row_version + 1
            WHERE id = ANY(\(ids)) AND lease_node = \(lease.node) AND status = \(JobStatus.processing.rawValue)
            RETURNING id, row_version
            """
        )
        var held = Set<UUID>()
        for row in rows {
            let (id, version) = try row.decode((UUID, Int64).self)
            memo.renewed(id, lease: JobRow.asStored(lease), version: version)
            held.insert(id)
        }
        return held
    }

    public func lapsedLeases(now: Date, limit: Int) async throws -> [Job] {
        try await database.query(
            """
            SELECT \(unescaped: JobRow.columns) FROM jobs
            WHERE status = \(JobStatus.processing.rawValue) AND lease_expires < \(now)
            ORDER BY lease_expires LIMIT \(limit)
            """
        ).map(JobRow.job)
    }

    public func list(
        owner: String,
        status: JobStatus?,
        type: JobType?,
        limit: Int,
        cursor: String?
    ) async throws -> (jobs: [Job], nextCursor: String?) {
        var after: (created: Date, id: UUID)?
        if let cursor {
            // "<created_at in microseconds since 1970>|<id>", newest first.
            let parts = cursor.split(separator: "|", maxSplits: 1).map(String.init)
            guard parts.count == 2, let micros = Int64(parts[0]), let id = UUID(uuidString: parts[1]) else {
                throw JobStoreError(code: "invalid_cursor", message: "cursor '\(cursor)' is not one this server issued")
            }
            after = (Date(timeIntervalSince1970: Double(micros) / 1_000_000), id)
        }
        // Filters left out are NULL: PostgreSQL plans an unnamed statement for its actual
        // values, so each `IS NULL` folds away.
        let query: PostgresQuery = """
            SELECT \(unescaped: JobRow.columns), \(unescaped: JobRow.cursorColumn) FROM jobs
            WHERE owner = \(owner)
              AND (\(status?.rawValue)::text IS NULL OR status = \(status?.rawValue))
              AND (\(type?.rawValue)::text IS NULL OR type = \(type?.rawValue))
              AND (\(after?.created)::timestamptz IS NULL OR (created_at, id) < (\(after?.created), \(after?.id)))
            ORDER BY created_at DESC, id DESC LIMIT \(limit + 1)
            """
        let rows = try await database.query(query)
        let page = Array(rows.prefix(limit))
        var next: String?
        if rows.count > limit, let last = page.last {
            let (micros, id) = try last.makeRandomAccess().decodeCursor()
            next = "\(micros)|\(id.lowercased)"
        }
        return (try page.map(JobRow.job), next)
    }

    public func activeCount(owner: String) async throws -> Int {
        try await database.withConnection { try await Self.activeCount(owner: owner, in: $0) }
    }

    private static func activeCount(owner: String, in session: PostgresSession) async throws -> Int {
        let rows = try await session.query("SELECT count(*) FROM jobs WHERE owner = \(owner) AND status = ANY(\(JobRow.unfinished))")
        return Int(try rows.first?.decode(Int64.self) ?? 0)
    }

    public func statusCounts() async throws -> [JobStatus: Int] {
        try await counts("SELECT status, count(*) FROM jobs GROUP BY status")
    }

    public func queuedCounts() async throws -> [JobType: Int] {
        try await counts("SELECT type, count(*) FROM jobs WHERE status = \(JobStatus.queued.rawValue) GROUP BY type")
    }

    /// A `SELECT key, count(*) … GROUP BY key` as a dictionary; keys this build does not know are left out.
    private func counts<Key: RawRepresentable<String>>(_ query: PostgresQuery) async throws -> [Key: Int] {
        var counts: [Key: Int] = [:]
        for row in try await database.query(query) {
            let (key, count) = try row.decode((String, Int64).self)
            if let key = Key(rawValue: key) { counts[key] = Int(count) }
        }
        return counts
    }

    public func due(now: Date, types: Set<JobType>, limit: Int) async throws -> [Job] {
        guard !types.isEmpty else { return [] }
        return try await database.query(Self.dueQuery(now: now, types: types, limit: limit)).map(JobRow.job)
    }

    /// Queued jobs of `types` whose time has come, oldest first: what `due` reads and
    /// `claimDue` locks.
    private static func dueQuery(now: Date, types: Set<JobType>, limit: Int, locking: String = "") -> PostgresQuery {
        """
        SELECT \(unescaped: JobRow.columns) FROM jobs
        WHERE status = \(JobStatus.queued.rawValue) AND type = ANY(\(types.map(\.rawValue).sorted()))
          AND (not_before IS NULL OR not_before <= \(now))
        ORDER BY created_at LIMIT \(limit) \(unescaped: locking)
        """
    }

    public func expired(now: Date, limit: Int) async throws -> [Job] {
        try await database.query(
            """
            SELECT \(unescaped: JobRow.columns) FROM jobs
            WHERE status = ANY(\([JobStatus.created.rawValue, JobStatus.queued.rawValue])) AND deadline <= \(now)
            ORDER BY deadline LIMIT \(limit)
            """
        ).map(JobRow.job)
    }

    public func unfinished() async throws -> [Job] {
        try await database.query("SELECT \(unescaped: JobRow.columns) FROM jobs WHERE status = ANY(\(JobRow.unfinished)) ORDER BY created_at").map(
            JobRow.job
        )
    }
}

/// A `jobs` row's values, as written and read.
struct JobRow {
    var id: UUID
    var owner: String
    var stored: StoredJob
    var createdAt: Date
    var updatedAt: Date
    var revision: Int

    var type: String { stored.type }
    var status: String { stored.status }
    var notBefore: Date? { stored.notBefore }
    var deadline: Date? { stored.deadline }
    var spec: String { stored.spec }
    var state: String { stored.state }
    var leaseNode: String? { stored.leaseNode }
    var leaseExpires: Date? { stored.leaseExpires }

    static let columns = "id, owner, spec, state, created_at, updated_at, revision, lease_node, lease_expires"
    /// The list's cursor: `created_at` as PostgreSQL stores it (microseconds), so a page
    /// boundary compares exactly.
    static let cursorColumn = "(extract(epoch FROM created_at) * 1000000)::int8"
    static let unfinished = [JobStatus.created, .queued, .processing].map(\.rawValue)

    init(_ job: Job) throws {
        id = job.id
        owner = job.owner
        stored = try StoredJob(job)
        createdAt = job.createdAt
        updatedAt = job.updatedAt
        revision = job.revision
    }

    /// The job as a read of the row written from it answers: PostgreSQL keeps dates to the
    /// microsecond, and only a PROCESSING job keeps its lease (`StoredJob`).
    static func asStored(_ job: Job) -> Job {
        var stored = job
        stored.createdAt = microseconds(job.createdAt)
        stored.updatedAt = microseconds(job.updatedAt)
        stored.lease = job.state.status == .processing ? job.lease.map(asStored) : nil
        return stored
    }

    static func asStored(_ lease: JobLease) -> JobLease {
        JobLease(node: lease.node, expires: microseconds(lease.expires))
    }

    /// A date as PostgresNIO writes it: whole microseconds since 2000-01-01, toward that day.
    private static func microseconds(_ date: Date) -> Date {
        let epoch = Date(timeIntervalSince1970: 946_684_800)
        return Date(timeInterval: Double(Int64(date.timeIntervalSince(epoch) * 1_000_000)) / 1_000_000, since: epoch)
    }

    /// A job from a row whose first columns are `columns`.
    static func job(_ row: PostgresRow) throws -> Job {
        let columns = row.makeRandomAccess()
        let id = try columns[0].decode(UUID.self)
        let (spec, state) = try decoded.decode(id: id, spec: try columns[2].decode(String.self), state: try columns[3].decode(String.self))
        return StoredJob.job(
            id: id,
            owner: try columns[1].decode(String.self),
            spec: spec,
            state: state,
            createdAt: try columns[4].decode(Date.self),
            updatedAt: try columns[5].decode(Date.self),
            revision: try columns[6].decode(Int.self),
            leaseNode: try columns[7].decode(String?.self),
            leaseExpires: try columns[8].decode(Date?.self)
        )
    }

    /// Shared by every store of the process: an entry is only reused for the same text.
    static let decoded = DecodedJobColumns()
}

extension PostgresRandomAccessRow {
    /// The list cursor's parts from a row of `JobRow.columns` then `JobRow.cursorColumn`.
    fileprivate func decodeCursor() throws -> (micros: Int64, id: UUID) {
        (try self[9].decode(Int64.self), try self[0].decode(UUID.self))
    }
}
