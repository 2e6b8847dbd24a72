import Foundation
import GRDB

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

/// Webhook deliveries that have not ended yet, in SQLite: the sender records one before its
/// first attempt and removes it when the receiver accepts, refuses or the window closes, so a
/// restart (or a shutdown mid-retry) resumes what was still owed.
public struct WebhookOutbox: Sendable {
    let database: GatewayDatabase

    public init(database: GatewayDatabase) {
        self.database = database
    }

    /// Records `delivery` unless one with the same message id is already owed.
    public func add(_ delivery: PendingWebhook) throws {
        try database.pool.write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO webhook_outbox (message_id, job_id, url, body, attempts, not_before, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    delivery.messageID, delivery.jobID.uuidString.lowercased(), delivery.url, delivery.body, delivery.attempts,
                    delivery.notBefore, delivery.expiresAt,
                ]
            )
        }
    }

    /// After a failed attempt: how many were made and when the next may start.
    public func reschedule(_ messageID: String, attempts: Int, notBefore: Date) throws {
        try database.pool.write { db in
            try db.execute(
                sql: "UPDATE webhook_outbox SET attempts = ?, not_before = ? WHERE message_id = ?",
                arguments: [attempts, notBefore, messageID]
            )
        }
    }

    /// The delivery ended (accepted, refused for good, or given up).
    public func remove(_ messageID: String) throws {
        try database.pool.write { db in
            try db.execute(sql: "DELETE FROM webhook_outbox WHERE message_id = ?", arguments: [messageID])
        }
    }

    /// Every delivery still owed, the earliest due first.
    public func pending() throws -> [PendingWebhook] {
        try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM webhook_outbox ORDER BY not_before").compactMap { row in
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
            }
        }
    }
}
