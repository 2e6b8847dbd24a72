import Foundation
import GRDB
import GatewayJobModel

/// Jobs in the store's SQLite database. The state machine is stored whole as JSON; `status`
/// and `not_before` are copied out beside it so the runner's queries hit an index.
public final class SQLiteJobStore: JobStore {
    let database: GatewayDatabase

    public init(database: GatewayDatabase) {
        self.database = database
    }

    public func insert(_ job: Job, activeLimit: Int?) async throws {
        try await database.pool.write { db in
            if let activeLimit {
                let active = try Self.active(owner: job.owner).fetchCount(db)
                if active >= activeLimit { throw ActiveJobLimitReached(active: active, limit: activeLimit) }
            }
            try JobRecord(job).insert(db)
        }
    }

    public func job(id: UUID) async throws -> Job? {
        try await database.pool.read { db in try JobRecord.fetchOne(db, key: id.lowercased)?.job() }
    }

    public func jobs(ids: [UUID]) async throws -> [Job] {
        try await database.pool.read { db in try JobRecord.fetchAll(db, keys: ids.map(\.lowercased)).map { try $0.job() } }
    }

    @discardableResult
    public func update(id: UUID, _ change: @Sendable (inout Job) throws -> Void) async throws -> Job {
        try await database.pool.write { db in
            guard let record = try JobRecord.fetchOne(db, key: id.lowercased) else {
                throw JobStoreError(code: "job_not_found", message: "no job with id \(id.lowercased)")
            }
            var job = try record.job()
            try change(&job)
            try JobRecord(job).update(db)
            return job
        }
    }

    public func list(
        owner: String,
        status: JobStatus?,
        type: JobType?,
        limit: Int,
        cursor: String?
    ) async throws -> (jobs: [Job], nextCursor: String?) {
        try await database.pool.read { db in
            var request = JobRecord.filter(JobRecord.Columns.owner == owner)
            if let status { request = request.filter(JobRecord.Columns.status == status.rawValue) }
            if let type { request = request.filter(JobRecord.Columns.type == type.rawValue) }
            if let cursor {
                // "<created_at as stored>|<id>", newest first.
                let parts = cursor.split(separator: "|", maxSplits: 1).map(String.init)
                guard parts.count == 2 else {
                    throw JobStoreError(code: "invalid_cursor", message: "cursor '\(cursor)' is not one this server issued")
                }
                request = request.filter(sql: "(created_at < ? OR (created_at = ? AND id < ?))", arguments: [parts[0], parts[0], parts[1]])
            }
            let records = try request.order(JobRecord.Columns.createdAt.desc, JobRecord.Columns.id.desc).limit(limit + 1).fetchAll(db)
            let page = Array(records.prefix(limit))
            let next = records.count > limit ? page.last.map { "\($0.createdAtText)|\($0.id)" } : nil
            return (try page.map { try $0.job() }, next)
        }
    }

    public func activeCount(owner: String) async throws -> Int {
        try await database.pool.read { db in try Self.active(owner: owner).fetchCount(db) }
    }

    /// The owner's unfinished jobs (an index range on `jobs_owner_status`).
    private static func active(owner: String) -> QueryInterfaceRequest<JobRecord> {
        JobRecord.filter(JobRecord.Columns.owner == owner)
            .filter([JobStatus.created, .queued, .processing].map(\.rawValue).contains(JobRecord.Columns.status))
    }

    public func statusCounts() async throws -> [JobStatus: Int] {
        try await database.pool.read { db in
            var counts: [JobStatus: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS n FROM jobs GROUP BY status") {
                if let status = JobStatus(rawValue: row["status"]) { counts[status] = row["n"] }
            }
            return counts
        }
    }

    public func queuedCounts() async throws -> [JobType: Int] {
        try await database.pool.read { db in
            var counts: [JobType: Int] = [:]
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT type, COUNT(*) AS n FROM jobs WHERE status = ? GROUP BY type",
                arguments: [JobStatus.queued.rawValue]
            )
            for row in rows {
                if let type = JobType(rawValue: row["type"]) { counts[type] = row["n"] }
            }
            return counts
        }
    }

    public func due(now: Date, types: Set<JobType>, limit: Int) async throws -> [Job] {
        guard !types.isEmpty else { return [] }
        return try await database.pool.read { db in try Self.due(now: now, types: types).limit(limit).fetchAll(db).map { try $0.job() } }
    }

    /// Queued jobs of `types` whose time has come, oldest first.
    private static func due(now: Date, types: Set<JobType>) -> QueryInterfaceRequest<JobRecord> {
        JobRecord.filter(JobRecord.Columns.status == JobStatus.queued.rawValue)
            .filter(types.map(\.rawValue).contains(JobRecord.Columns.type))
            .filter(JobRecord.Columns.notBefore == nil || JobRecord.Columns.notBefore <= now)
            .order(JobRecord.Columns.createdAt)
    }

    /// The write transaction is the whole database's: no other engine claims meanwhile.
    public func claimDue(
        now: Date,
        types: Set<JobType>,
        limit: Int,
        lease: JobLease,
        _ start: @escaping @Sendable (inout Job) throws -> Void
    ) async throws -> [Job] {
        guard !types.isEmpty, limit > 0 else { return [] }
        return try await database.pool.write { db in
            var claimed: [Job] = []
            for record in try Self.due(now: now, types: types).limit(limit).fetchAll(db) {
                var job = try record.job()
                do {
                    try start(&job)
                } catch {
                    continue
                }
                job.lease = lease
                try JobRecord(job).update(db)
                claimed.append(job)
            }
            return claimed
        }
    }

    public func renewLeases(_ ids: [UUID], lease: JobLease) async throws -> Set<UUID> {
        guard !ids.isEmpty else { return [] }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
        let arguments: StatementArguments = [lease.expires, lease.node, JobStatus.processing.rawValue] + StatementArguments(ids.map(\.lowercased))
        let renewed = try await database.pool.write { db in
            try String.fetchAll(
                db,
                sql: "UPDATE jobs SET lease_expires = ? WHERE lease_node = ? AND status = ? AND id IN (\(marks)) RETURNING id",
                arguments: arguments
            )
        }
        return Set(renewed.compactMap(UUID.init(uuidString:)))
    }

    public func lapsedLeases(now: Date, limit: Int) async throws -> [Job] {
        try await database.pool.read { db in
            try JobRecord.filter(JobRecord.Columns.status == JobStatus.processing.rawValue)
                .filter(JobRecord.Columns.leaseExpires != nil && JobRecord.Columns.leaseExpires < now)
                .order(JobRecord.Columns.leaseExpires).limit(limit).fetchAll(db).map { try $0.job() }
        }
    }

    public func expired(now: Date, limit: Int) async throws -> [Job] {
        try await database.pool.read { db in
            try JobRecord.filter([JobStatus.created, .queued].map(\.rawValue).contains(JobRecord.Columns.status))
                .filter(JobRecord.Columns.deadline != nil && JobRecord.Columns.deadline <= now)
                .order(JobRecord.Columns.deadline).limit(limit).fetchAll(db).map { try $0.job() }
        }
    }

    public func unfinished() async throws -> [Job] {
        try await database.pool.read { db in
            try JobRecord.filter([JobStatus.created, .queued, .processing].map(\.rawValue).contains(JobRecord.Columns.status))
                .order(JobRecord.Columns.createdAt).fetchAll(db).map { try $0.job() }
        }
    }
}

/// A `jobs` row.
struct JobRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "jobs"

    var id: String
    var owner: String
    var type: String
    var status: String
    var notBefore: Date?
    /// The state machine's deadline, as a column so expired jobs are found without decoding.
    var deadline: Date?
    var spec: String
    var state: String
    var createdAt: Date
    var updatedAt: Date
    var revision: Int
    var leaseNode: String?
    var leaseExpires: Date?

    enum CodingKeys: String, CodingKey {
        case id, owner, type, status
        case notBefore = "not_before"
        case deadline
        case spec, state
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case revision
        case leaseNode = "lease_node"
        case leaseExpires = "lease_expires"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let owner = Column(CodingKeys.owner)
        static let status = Column(CodingKeys.status)
        static let type = Column(CodingKeys.type)
        static let notBefore = Column(CodingKeys.notBefore)
        static let deadline = Column(CodingKeys.deadline)
        static let createdAt = Column(CodingKeys.createdAt)
        static let leaseNode = Column(CodingKeys.leaseNode)
        static let leaseExpires = Column(CodingKeys.leaseExpires)
    }

    init(_ job: Job) throws {
        let stored = try StoredJob(job)
        id = job.id.lowercased
        owner = job.owner
        type = stored.type
        status = stored.status
        notBefore = stored.notBefore
        deadline = stored.deadline
        spec = stored.spec
        state = stored.state
        createdAt = job.createdAt
        updatedAt = job.updatedAt
        revision = job.revision
        leaseNode = stored.leaseNode
        leaseExpires = stored.leaseExpires
    }

    func job() throws -> Job {
        guard let uuid = UUID(uuidString: id) else {
            throw JobStoreError(code: "corrupt_job_row", message: "the jobs row '\(id)' has no valid id")
        }
        return try StoredJob.job(
            id: uuid,
            owner: owner,
            spec: spec,
            state: state,
            createdAt: createdAt,
            updatedAt: updatedAt,
            revision: revision,
            leaseNode: leaseNode,
            leaseExpires: leaseExpires
        )
    }

    /// `created_at` exactly as SQLite stores and compares it.
    var createdAtText: String { createdAt.databaseValue.storage.value as? String ?? "" }
}
