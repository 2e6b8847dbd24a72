import Foundation
import GRDB
import GatewayCore
import Synchronization

/// `Idempotency-Key` on job creation, in the store's database: a key is held from its request's
/// first byte (so a retry while the body streams hears "in progress", on any process), completed
/// with the request's hash and its job, and answered from then on with that job, or refused
/// for a different request.
public final class IdempotencyStore: IdempotencyKeys {
    let database: GatewayDatabase
    /// How long a key is remembered (a day, as Stripe and the IETF draft suggest).
    public let lifetime: TimeInterval
    /// A hold not refreshed for this long is an abandoned one (its request died), not one in
    /// progress: a request refreshes its hold every minute while its body streams.
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

    public func hold(owner: String, key: String, now: Date = Date()) throws -> KeyHold {
        try sweepIfDue(now: now)
        return try database.pool.write { db in
            if let row = try Row.fetchOne(
                db,
                sql: "SELECT request_sha256, job_id, created_at FROM idempotency_keys WHERE owner = ? AND key = ?",
                arguments: [owner, key]
            ) {
                if let job: String = row["job_id"], let id = UUID(uuidString: job) {
                    return .used(requestHash: row["request_sha256"], jobID: id)
                }
                // Held and refreshed within `abandonedAfter`: its request is still running.
                guard now.timeIntervalSince(row["created_at"] as Date) > abandonedAfter else { return .inProgress }
                try db.execute(sql: "DELETE FROM idempotency_keys WHERE owner = ? AND key = ?", arguments: [owner, key])
            }
            // The request's hash is known only once its body is in: `complete` writes it.
            try db.execute(
                sql: "INSERT INTO idempotency_keys (owner, key, request_sha256, created_at) VALUES (?, ?, '', ?)",
                arguments: [owner, key, now]
            )
            return .held
        }
    }

    public func refresh(owner: String, key: String, now: Date = Date()) throws {
        try database.pool.write { db in
            try db.execute(
                sql: "UPDATE idempotency_keys SET created_at = ? WHERE owner = ? AND key = ? AND job_id IS NULL",
                arguments: [now, owner, key]
            )
        }
    }

    public func complete(owner: String, key: String, requestHash: String, jobID: UUID) throws {
        try database.pool.write { db in
            try db.execute(
                sql: "UPDATE idempotency_keys SET request_sha256 = ?, job_id = ? WHERE owner = ? AND key = ?",
                arguments: [requestHash, jobID.uuidString.lowercased(), owner, key]
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
