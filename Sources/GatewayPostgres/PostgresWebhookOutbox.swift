import Foundation
import GatewayJobModel
import PostgresNIO

/// Webhook deliveries still owed, in the database a cluster shares. A lapsed claim is taken
/// with `FOR UPDATE SKIP LOCKED`, so two nodes looking at once never take the same delivery.
public struct PostgresWebhookOutbox: WebhookDeliveries {
    let database: PostgresDatabase

    public init(database: PostgresDatabase) {
        self.database = database
    }

    public func add(_ d: PendingWebhook, claim: JobLease) async throws {
        try await database.query(
            """
            INSERT INTO webhook_outbox (message_id, job_id, url, body, attempts, not_before, expires_at, claim_node, claim_expires)
            VALUES (\(d.messageID), \(d.jobID), \(d.url), \(ByteBuffer(bytes: d.body)), \(d.attempts), \(d.notBefore), \(d.expiresAt),
                    \(claim.node), \(claim.expires))
            ON CONFLICT (message_id) DO NOTHING
            """
        )
    }

    public func reschedule(_ messageID: String, attempts: Int, notBefore: Date, claim: JobLease) async throws {
        try await database.query(
            """
            UPDATE webhook_outbox SET attempts = \(attempts), not_before = \(notBefore), claim_node = \(claim.node),
                claim_expires = \(claim.expires)
            WHERE message_id = \(messageID)
            """
        )
    }

    public func remove(_ messageID: String) async throws {
        try await database.query("DELETE FROM webhook_outbox WHERE message_id = \(messageID)")
    }

    public func claimLapsed(now: Date, claim: JobLease, limit: Int) async throws -> [PendingWebhook] {
        try await database.query(
            """
            UPDATE webhook_outbox SET claim_node = \(claim.node), claim_expires = \(claim.expires)
            WHERE message_id IN (
                SELECT message_id FROM webhook_outbox WHERE claim_expires IS NULL OR claim_expires < \(now)
                ORDER BY not_before LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING message_id, job_id, url, body, attempts, not_before, expires_at
            """
        ).map { row in
            let (id, job, url, body, attempts, notBefore, expires) = try row.decode((String, UUID, String, ByteBuffer, Int, Date, Date).self)
            return PendingWebhook(
                messageID: id,
                jobID: job,
                url: url,
                body: Data(body.readableBytesView),
                attempts: attempts,
                notBefore: notBefore,
                expiresAt: expires
            )
        }.sorted { $0.notBefore < $1.notBefore }
    }
}
