import Foundation
import Synchronization

/// Per-owner job creation rate: a token bucket of `perMinute` tokens that refills continuously,
/// so a burst up to the minute's allowance passes and a steady flood is paced. Kept in this
/// process's memory: each process of a cluster paces its own share.
final class CreationRate: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let perMinute: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(perMinute: Int) {
        self.perMinute = perMinute
    }

    /// Takes one creation for `owner`; nil when allowed, else the seconds until one is.
    func take(owner: String, now: ContinuousClock.Instant = .now) -> Int? {
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
