import Foundation
import GatewayCore
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
            let seconds = elapsed.inSeconds
            bucket.tokens = min(capacity, bucket.tokens + seconds * perSecond)
            bucket.updated = now
            defer { buckets[owner] = bucket }
            guard bucket.tokens >= 1 else { return Int(((1 - bucket.tokens) / perSecond).rounded(.up)) }
            bucket.tokens -= 1
            return nil
        }
    }
}

/// Per-owner critical sections: "count the owner's unfinished jobs, then create one" runs as one
/// step, so two creates at limit − 1 cannot both pass the count. The body is short and
/// synchronous (a SQLite insert), so a `Mutex` held across it is the right tool.
final class OwnerGates: Sendable {
    private final class Gate: Sendable {
        let mutex = Mutex(())
    }

    /// One gate per owner ever seen; owners are a handful of token holders, so it stays small.
    private let gates = Mutex<[String: Gate]>([:])

    func exclusively<T: Sendable>(owner: String, _ body: () throws -> T) throws -> T {
        let gate = gates.withLock { gates in
            if let gate = gates[owner] { return gate }
            let gate = Gate()
            gates[owner] = gate
            return gate
        }
        return try gate.mutex.withLock { _ in try body() }
    }
}

/// What one request at a time may hold: an upload slot being written (a second PUT while the
/// first streams is refused, like one after it finished: single use), or an idempotency key
/// whose first request is still running, its body perhaps still streaming.
final class InFlight<Element: Hashable & Sendable>: Sendable {
    private let active = Mutex<Set<Element>>([])

    /// False when another request holds `element`.
    func begin(_ element: Element) -> Bool { active.withLock { $0.insert(element).inserted } }
    func end(_ element: Element) { _ = active.withLock { $0.remove(element) } }
}
