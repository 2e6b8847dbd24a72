import Foundation
import Synchronization

/// Where the per-owner creation rate is counted: in this process (`CreationRate`) or in the
/// database every gateway of a cluster shares, so the owner's allowance is one across nodes.
public protocol CreationPacing: Sendable {
    /// Takes one creation for `owner` from a token bucket of `perMinute` that refills
    /// continuously; nil when allowed, else the whole seconds until one is.
    func take(owner: String, perMinute: Int) async throws -> Int?
}

/// Per-owner job creation rate in this process's memory: a token bucket of `perMinute` tokens
/// that refills continuously, so a burst up to the minute's allowance passes and a steady flood
/// is paced.
public final class CreationRate: CreationPacing {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let buckets = Mutex<[String: Bucket]>([:])

    public init() {}

    public func take(owner: String, perMinute: Int) -> Int? { take(owner: owner, perMinute: perMinute, now: .now) }

    func take(owner: String, perMinute: Int, now: ContinuousClock.Instant) -> Int? {
        let capacity = Double(max(perMinute, 1))
        let perSecond = capacity / 60
        return buckets.withLock { buckets in
            var bucket = buckets[owner] ?? Bucket(tokens: capacity, updated: now)
            bucket.tokens = min(capacity, bucket.tokens + (now - bucket.updated).inSeconds * perSecond)
            bucket.updated = now
            defer { buckets[owner] = bucket }
            guard bucket.tokens >= 1 else { return Int(((1 - bucket.tokens) / perSecond).rounded(.up)) }
            bucket.tokens -= 1
            return nil
        }
    }
}
