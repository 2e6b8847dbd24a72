import Foundation
import GRDB
import GatewayCore
import Synchronization

/// `Idempotency-Key` on job creation: the same key and body give the same job, a different body
/// is refused, and a key whose first request is still running answers "in progress".
public final class IdempotencyStore: IdempotencyKeys {
    public typealias Claim = IdempotencyClaim

    let database: GatewayDatabase
    /// How long a key is remembered (a day, as Stripe and the IETF draft suggest).
    public let lifetime: TimeInterval
    /// A claim older than this with no job is an abandoned one (its request died mid-create),
    /// not one in progress: creating a job takes milliseconds, not minutes.
    public let abandonedAfter: TimeInterval
    private let lastSweep = Mutex<Date?>(nil)

    public init(database: GatewayDatabase, lifetime: TimeInterval = 24 * 3600, abandonedAfter: TimeInterval = 300) {
        self.database = database
        self.lifetime = lifetime
        self.abandonedAfter = abandonedAfter
    }

    /// At start: claims left by a process that died mid-create can never complete, so they are
    /// released (the client's retry then creates the job instead of hearing 409 forever), and
    /// expired keys go.
    public func recoverAfterRestart(now: Date = Date()) throws {
        try database.pool.write { db in
            try db.execute(sql: "DELETE FROM idempotency_keys WHERE job_id IS NULL")
        }
        try purge(olderThan: now.addingTimeInterval(-lifetime))
        lastSweep.withLock { $0 = now }
    }

    public func claim(owner: String, key: String, requestHash: String, now: Date = Date()) throws -> Claim {
        try sweepIfDue(now: now)
        return try database.pool.write { db in
            if let row = try Row.fetchOne(
                db,
                sql: "SELECT request_sha256, job_id, created_at FROM idempotency_keys WHERE owner = ? AND key = ?",
                arguments: [owner, key]
            ) {
                let created: Date = row["created_at"]
                let abandoned = (row["job_id"] as String?) == nil && now.timeIntervalSince(created) > abandonedAfter
                if !abandoned {
                    guard row["request_sha256"] as String == requestHash else { return .mismatch }
                    guard let job: String = row["job_id"], let id = UUID(uuidString: job) else { return .inProgress }
                    return .replay(jobID: id)
                }
                try db.execute(sql: "DELETE FROM idempotency_keys WHERE owner = ? AND key = ?", arguments: [owner, key])
            }
            try db.execute(
                sql: "INSERT INTO idempotency_keys (owner, key, request_sha256, created_at) VALUES (?, ?, ?, ?)",
                arguments: [owner, key, requestHash, now]
            )
            return .claimed
        }
    }

    /// Whether `key` already created a job for `owner`: a request carrying it is a replay, which
    /// is answered with that job and so is not held to the owner's limits.
    public func hasCreatedJob(owner: String, key: String) throws -> Bool {
        try database.pool.read { db in
            try Bool.fetchOne(
                db,
                sql: "SELECT job_id IS NOT NULL FROM idempotency_keys WHERE owner = ? AND key = ?",
                arguments: [owner, key]
            ) ?? false
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

    /// Forgets expired keys at most once an hour, from the create path itself.
    private func sweepIfDue(now: Date) throws {
        let due = lastSweep.withLock { last in
            guard last.map({ now.timeIntervalSince($0) >= 3600 }) ?? true else { return false }
            last = now
            return true
        }
        if due { try purge(olderThan: now.addingTimeInterval(-lifetime)) }
    }

    /// Keys created before `date` are forgotten.
    public func purge(olderThan date: Date) throws {
        _ = try database.pool.write { db in
            try db.execute(sql: "DELETE FROM idempotency_keys WHERE created_at < ?", arguments: [date])
        }
    }
}
