import Foundation
import GRDB
import GatewayJobModel

/// Webhook deliveries still owed, in the store's SQLite database.
public struct WebhookOutbox: WebhookDeliveries {
    let database: GatewayDatabase

    public init(database: GatewayDatabase) {
        self.database = database
    }

    public func add(_ delivery: PendingWebhook, claim: JobLease) async throws {
        try await database.pool.write { db in
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

    public func reschedule(_ messageID: String, attempts: Int, notBefore: Date, claim: JobLease) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE webhook_outbox SET attempts = ?, not_before = ?, claim_node = ?, claim_expires = ? WHERE message_id = ?",
                arguments: [attempts, notBefore, claim.node, claim.expires, messageID]
            )
        }
    }

    public func remove(_ messageID: String) async throws {
        try await database.pool.write { db in
            try db.execute(sql: "DELETE FROM webhook_outbox WHERE message_id = ?", arguments: [messageID])
        }
    }

    public func claimLapsed(now: Date, claim: JobLease, limit: Int) async throws -> [PendingWebhook] {
        try await database.pool.write { db in
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
