import Foundation
import Synchronization

/// Per-owner job creation rate: a token bucket of `perMinute` tokens that refills continuously,
/// so a burst up to the minute's allowance passes and a steady flood is paced.
final class OwnerLimits: Sendable {
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
    func takeCreation(owner: String, now: ContinuousClock.Instant = .now) -> Int? {
        let capacity = Double(max(perMinute, 1))
        let perSecond = capacity / 60
        return buckets.withLock { buckets in
            var bucket = buckets[owner] ?? Bucket(tokens: capacity, updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(capacity, bucket.tokens + seconds * perSecond)
            bucket.updated = now
            defer { buckets[owner] = bucket }
            guard bucket.tokens >= 1 else { return Int(((1 - bucket.tokens) / perSecond).rounded(.up)) }
            bucket.tokens -= 1
            return nil
        }
    }
}

/// Upload slots being written right now: a second PUT to the same job while the first is still
/// streaming is refused, like one after it finished (single use).
final class UploadSlots: Sendable {
    private let active = Mutex<Set<UUID>>([])

    func begin(_ id: UUID) -> Bool { active.withLock { $0.insert(id).inserted } }
    func end(_ id: UUID) { _ = active.withLock { $0.remove(id) } }
}
