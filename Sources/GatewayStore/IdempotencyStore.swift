import Foundation
import GRDB
import GatewayJobModel

/// `Idempotency-Key` on job creation, in the store's database: a key is held from its request's
/// first byte (so a retry while the body streams hears "in progress", on any process), completed
/// with the request's hash and its job, and answered from then on with that job, or refused
/// for a different request.
public final class IdempotencyStore: IdempotencyKeys {
    let database: GatewayDatabase
    let expiry: KeyExpiry

    public init(database: GatewayDatabase, expiry: KeyExpiry = KeyExpiry()) {
        self.database = database
        self.expiry = expiry
    }

    /// At start: claims left by a process that died mid-create can never complete, so they are
    /// released (the client's retry then creates the job instead of hearing 409 forever), and
    /// expired keys go.
    public func recoverAfterRestart(now: Date = Date()) async throws {
        try await database.pool.write { db in
            try db.execute(sql: "DELETE FROM idempotency_keys WHERE job_id IS NULL")
        }
        try await expiry.sweep(now: now, purge)
    }

    public func hold(owner: String, key: String, now: Date = Date()) async throws -> KeyHold {
        try await expiry.sweepIfDue(now: now, purge)
        return try await database.pool.write { db in
            if let row = try Row.fetchOne(
                db,
                sql: "SELECT request_sha256, job_id, created_at FROM idempotency_keys WHERE owner = ? AND key = ?",
                arguments: [owner, key]
            ) {
                if let job: String = row["job_id"], let id = UUID(uuidString: job) {
                    return .used(requestHash: row["request_sha256"], jobID: id)
                }
                // Held and refreshed within `abandonedAfter`: its request is still running.
                guard expiry.isAbandoned(heldSince: row["created_at"], now: now) else { return .inProgress }
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

    public func refresh(owner: String, key: String, now: Date = Date()) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE idempotency_keys SET created_at = ? WHERE owner = ? AND key = ? AND job_id IS NULL",
                arguments: [now, owner, key]
            )
        }
    }

    public func complete(owner: String, key: String, requestHash: String, jobID: UUID) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE idempotency_keys SET request_sha256 = ?, job_id = ? WHERE owner = ? AND key = ?",
                arguments: [requestHash, jobID.uuidString.lowercased(), owner, key]
            )
        }
    }

    /// The creation failed: the key may be used again.
    public func release(owner: String, key: String) async throws {
        try await database.pool.write { db in
            try db.execute(sql: "DELETE FROM idempotency_keys WHERE owner = ? AND key = ? AND job_id IS NULL", arguments: [owner, key])
        }
    }

    /// Keys created before `date` are forgotten.
    public func purge(olderThan date: Date) async throws {
        _ = try await database.pool.write { db in
            try db.execute(sql: "DELETE FROM idempotency_keys WHERE created_at < ?", arguments: [date])
        }
    }
}
