import Foundation
import GRDB
import GatewayCore

/// A webhook delivery still owed to a receiver.
public struct PendingWebhook: Sendable, Equatable {
    /// The Standard Webhooks `webhook-id`: one per job and revision, the same on every retry.
    public var messageID: String
    public var jobID: UUID
    public var url: String
    /// The exact payload, so a retry after a restart signs the same bytes.
    public var body: Data
    /// Attempts made so far.
    public var attempts: Int
    /// The next attempt must not start before this.
    public var notBefore: Date
    /// Past this the delivery is given up.
    public var expiresAt: Date

    public init(messageID: String, jobID: UUID, url: String, body: Data, attempts: Int = 0, notBefore: Date, expiresAt: Date) {
        self.messageID = messageID
        self.jobID = jobID
        self.url = url
        self.body = body
        self.attempts = attempts
        self.notBefore = notBefore
        self.expiresAt = expiresAt
    }
}

/// Webhook deliveries that have not ended yet: the sender records one before its first
/// attempt, claimed by its node, and removes it when the receiver accepts, refuses or the
/// window closes. A delivery whose claim lapsed (its node died or stopped) is claimed by the
/// next node that looks, and sent on under the same `webhook-id` and body.
public protocol WebhookDeliveries: Sendable {
    /// Records `delivery`, claimed by `claim`, unless one with the same message id is owed.
    func add(_ delivery: PendingWebhook, claim: JobLease) throws
    /// After a failed attempt: how many were made, when the next may start, and the claim
    /// extended past it.
    func reschedule(_ messageID: String, attempts: Int, notBefore: Date, claim: JobLease) throws
    /// The delivery ended (accepted, refused for good, or given up).
    func remove(_ messageID: String) throws
    /// Claims for `claim.node` up to `limit` deliveries whose claim lapsed by `now`, the
    /// earliest due first.
    func claimLapsed(now: Date, claim: JobLease, limit: Int) throws -> [PendingWebhook]
}

/// Webhook deliveries still owed, in the store's SQLite database.
public struct WebhookOutbox: WebhookDeliveries {
    let database: GatewayDatabase

    public init(database: GatewayDatabase) {
        self.database = database
    }

    public func add(_ delivery: PendingWebhook, claim: JobLease) throws {
        try database.pool.write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO webhook_outbox (message_id, job_id, url, body, attempts, not_before, expires_at, claim_node, claim_expires)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    delivery.messageID, delivery.jobID.uuidString.lowercased(), delivery.url, delivery.body, delivery.attempts,
                    delivery.notBefore, delivery.expiresAt, claim.node, claim.expires,
                ]
            )
        }
    }

    public func reschedule(_ messageID: String, attempts: Int, notBefore: Date, claim: JobLease) throws {
        try database.pool.write { db in
            try db.execute(
                sql: "UPDATE webhook_outbox SET attempts = ?, not_before = ?, claim_node = ?, claim_expires = ? WHERE message_id = ?",
                arguments: [attempts, notBefore, claim.node, claim.expires, messageID]
            )
        }
    }

    public func remove(_ messageID: String) throws {
        try database.pool.write { db in
            try db.execute(sql: "DELETE FROM webhook_outbox WHERE message_id = ?", arguments: [messageID])
        }
    }

    public func claimLapsed(now: Date, claim: JobLease, limit: Int) throws -> [PendingWebhook] {
        try database.pool.write { db in
            try Row.fetchAll(
                db,
                sql: """
                    UPDATE webhook_outbox SET claim_node = ?, claim_expires = ?
                    WHERE message_id IN (
                        SELECT message_id FROM webhook_outbox WHERE claim_expires IS NULL OR claim_expires < ? ORDER BY not_before LIMIT ?)
                    RETURNING *
                    """,
                arguments: [claim.node, claim.expires, now, limit]
            ).compactMap { row in
                guard let jobID = UUID(uuidString: row["job_id"]) else { return nil }
                return PendingWebhook(
                    messageID: row["message_id"],
                    jobID: jobID,
                    url: row["url"],
                    body: row["body"],
                    attempts: row["attempts"],
                    notBefore: row["not_before"],
                    expiresAt: row["expires_at"]
                )
            }.sorted { $0.notBefore < $1.notBefore }
        }
    }
}
