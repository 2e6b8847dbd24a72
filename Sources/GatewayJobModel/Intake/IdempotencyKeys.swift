import Foundation

/// What holding an `Idempotency-Key` found, at a request's first byte.
public enum KeyHold: Sendable, Equatable {
    /// This request holds the key now: create the job, then `complete` (or `release`).
    case held
    /// The key created a job already, for a request that hashed to `requestHash`.
    case used(requestHash: String, jobID: UUID)
    /// Another request holds it and has not finished.
    case inProgress
}

/// `Idempotency-Key`s of job creates, kept durably: the same key and request give the same job,
/// a different request is refused, and a key whose first request is still running (its body
/// perhaps still streaming) answers "in progress" to any process sharing the store.
/// `IdempotencyStore` keeps them in the store's database.
public protocol IdempotencyKeys: Sendable {
    /// Takes `key` for a request that has just begun, unless it is in use or was used.
    func hold(owner: String, key: String, now: Date) async throws -> KeyHold
    /// Keeps a held key from looking abandoned while its request's body still streams.
    func refresh(owner: String, key: String, now: Date) async throws
    /// The held key created `jobID` for a request that hashed to `requestHash`.
    func complete(owner: String, key: String, requestHash: String, jobID: UUID) async throws
    /// The create failed: the key may be used again.
    func release(owner: String, key: String) async throws
    /// Called when a gateway starts: releases the holds a crash left, where no other gateway
    /// can be holding keys (a store nobody shares).
    func recoverAfterRestart(now: Date) async throws
}
