import Foundation
import GRDB

/// `Idempotency-Key` on job creation: the same key and body give the same job, a different body
/// is refused, and a key whose first request is still running answers "in progress".
public final class IdempotencyStore: Sendable {
    public enum Claim: Sendable, Equatable {
        /// First use: create the job, then `complete`.
        case claimed
        /// Seen before with the same body: answer with this job.
        case replay(jobID: UUID)
        /// Seen before with another body.
        case mismatch
        /// The first request with this key has not finished yet.
        case inProgress
    }

    let database: GatewayDatabase

    public init(database: GatewayDatabase) {
        self.database = database
    }

    public func claim(owner: String, key: String, requestHash: String, now: Date = Date()) throws -> Claim {
        try database.pool.write { db in
            if let row = try Row.fetchOne(
                db,
                sql: "SELECT request_sha256, job_id FROM idempotency_keys WHERE owner = ? AND key = ?",
                arguments: [owner, key]
            ) {
                guard row["request_sha256"] as String == requestHash else { return .mismatch }
                guard let job: String = row["job_id"], let id = UUID(uuidString: job) else { return .inProgress }
                return .replay(jobID: id)
            }
            try db.execute(
                sql: "INSERT INTO idempotency_keys (owner, key, request_sha256, created_at) VALUES (?, ?, ?, ?)",
                arguments: [owner, key, requestHash, now]
            )
            return .claimed
        }
    }

    public func complete(owner: String, key: String, jobID: UUID) throws {
        try database.pool.write { db in
            try db.execute(
                sql: "UPDATE idempotency_keys SET job_id = ? WHERE owner = ? AND key = ?",
                arguments: [jobID.uuidString.lowercased(), owner, key]
            )
        }
    }

    /// The creation failed: the key may be used again.
    public func release(owner: String, key: String) throws {
        try database.pool.write { db in
            try db.execute(sql: "DELETE FROM idempotency_keys WHERE owner = ? AND key = ? AND job_id IS NULL", arguments: [owner, key])
        }
    }

    /// Keys older than `age` are forgotten (24 h is what Stripe and IETF's draft suggest).
    public func purge(olderThan date: Date) throws {
        _ = try database.pool.write { db in
            try db.execute(sql: "DELETE FROM idempotency_keys WHERE created_at < ?", arguments: [date])
        }
    }
}
