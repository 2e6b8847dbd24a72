import Foundation
import GatewayJobModel
import PostgresNIO

/// `Idempotency-Key`s in PostgreSQL, held the same way on every node sharing it: a key is held
/// from its request's first byte, completed with the request's hash and its job, and answered
/// from then on with that job. Unlike the embedded store, a node's start releases no holds:
/// they may be another node's requests in progress; a hold nobody refreshes is taken over once
/// `abandonedAfter` has passed.
public final class PostgresIdempotencyKeys: IdempotencyKeys {
    let database: PostgresDatabase
    let expiry: KeyExpiry

    public init(database: PostgresDatabase, expiry: KeyExpiry = KeyExpiry()) {
        self.database = database
        self.expiry = expiry
    }

    public func hold(owner: String, key: String, now: Date) async throws -> KeyHold {
        try await expiry.sweepIfDue(now: now, purge)
        return try await database.transaction { [expiry] session in
            let existing = try await session.query(
                "SELECT request_sha256, job_id, created_at FROM idempotency_keys WHERE owner = \(owner) AND key = \(key) FOR UPDATE"
            )
            if let row = existing.first {
                let (hash, job, heldSince) = try row.decode((String, UUID?, Date).self)
                if let job { return .used(requestHash: hash, jobID: job) }
                guard expiry.isAbandoned(heldSince: heldSince, now: now) else { return .inProgress }
                try await session.query("DELETE FROM idempotency_keys WHERE owner = \(owner) AND key = \(key)")
            }
            // Two nodes may both find no row: the second insert waits for the first to commit,
            // then inserts nothing, and its request hears "in progress".
            let inserted = try await session.query(
                """
                INSERT INTO idempotency_keys (owner, key, request_sha256, created_at) VALUES (\(owner), \(key), '', \(now))
                ON CONFLICT (owner, key) DO NOTHING RETURNING 1
                """
            )
            return inserted.isEmpty ? .inProgress : .held
        }
    }

    public func refresh(owner: String, key: String, now: Date) async throws {
        try await database.query("UPDATE idempotency_keys SET created_at = \(now) WHERE owner = \(owner) AND key = \(key) AND job_id IS NULL")
    }

    public func complete(owner: String, key: String, requestHash: String, jobID: UUID) async throws {
        try await database.query(
            "UPDATE idempotency_keys SET request_sha256 = \(requestHash), job_id = \(jobID) WHERE owner = \(owner) AND key = \(key)"
        )
    }

    public func release(owner: String, key: String) async throws {
        try await database.query("DELETE FROM idempotency_keys WHERE owner = \(owner) AND key = \(key) AND job_id IS NULL")
    }

    /// Releases nothing: the holds may be other nodes' requests in progress. An abandoned one is
    /// taken over once `abandonedAfter` has passed (see `hold`).
    public func recoverAfterRestart(now: Date) async throws {}

    /// Keys created before `date` are forgotten.
    public func purge(olderThan date: Date) async throws {
        try await database.query("DELETE FROM idempotency_keys WHERE created_at < \(date)")
    }
}
