import Foundation
import Synchronization

/// How long `Idempotency-Key`s live, whichever store keeps them: a used key is remembered for a
/// day (as Stripe and the IETF draft suggest), a hold nobody refreshed for five minutes belongs
/// to a request that died, and expired keys are forgotten at most once an hour per process,
/// from the create path itself.
public final class KeyExpiry: Sendable {
    public let lifetime: TimeInterval
    /// A request refreshes its hold every minute while its body streams (`JobIntake`).
    public let abandonedAfter: TimeInterval
    private let lastSweep = Mutex<Date?>(nil)

    public init(lifetime: TimeInterval = 24 * 3600, abandonedAfter: TimeInterval = 300) {
        self.lifetime = lifetime
        self.abandonedAfter = abandonedAfter
    }

    /// Whether a hold last refreshed at `heldSince` is abandoned rather than in progress.
    public func isAbandoned(heldSince: Date, now: Date) -> Bool { now.timeIntervalSince(heldSince) > abandonedAfter }

    /// Calls `purge` with the cut-off (keys created before it go) when an hour has passed since
    /// the last sweep, or none ran yet.
    public func sweepIfDue(now: Date, _ purge: (Date) async throws -> Void) async throws {
        let due = lastSweep.withLock { last in
            guard last.map({ now.timeIntervalSince($0) >= 3600 }) ?? true else { return false }
            last = now
            return true
        }
        if due { try await purge(now.addingTimeInterval(-lifetime)) }
    }

    /// Sweeps now, whenever the last one ran.
    public func sweep(now: Date, _ purge: (Date) async throws -> Void) async throws {
        lastSweep.withLock { $0 = now }
        try await purge(now.addingTimeInterval(-lifetime))
    }
}
