import Foundation

/// What `Idempotency-Key` found when a create claimed it.
public enum IdempotencyClaim: Sendable, Equatable {
    /// First use: create the job, then `complete`.
    case claimed
    /// Seen before with the same request: answer with this job.
    case replay(jobID: UUID)
    /// Seen before with another request.
    case mismatch
    /// The first request with this key has not finished yet.
    case inProgress
}

/// `Idempotency-Key`s of job creates, kept durably: the same key and request give the same job,
/// a different request is refused. `IdempotencyStore` keeps them in the store's database.
public protocol IdempotencyKeys: Sendable {
    func claim(owner: String, key: String, requestHash: String, now: Date) throws -> IdempotencyClaim
    /// Whether `key` already created a job for `owner`: a request carrying it is a replay.
    func hasCreatedJob(owner: String, key: String) throws -> Bool
    func complete(owner: String, key: String, jobID: UUID) throws
    /// The create failed: the key may be used again.
    func release(owner: String, key: String) throws
}
