import Foundation

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
    func add(_ delivery: PendingWebhook, claim: JobLease) async throws
    /// After a failed attempt: how many were made, when the next may start, and the claim
    /// extended past it.
    func reschedule(_ messageID: String, attempts: Int, notBefore: Date, claim: JobLease) async throws
    /// The delivery ended (accepted, refused for good, or given up).
    func remove(_ messageID: String) async throws
    /// Claims for `claim.node` up to `limit` deliveries whose claim lapsed by `now`, the
    /// earliest due first.
    func claimLapsed(now: Date, claim: JobLease, limit: Int) async throws -> [PendingWebhook]
}
