import Foundation

/// The time and the chance the engine decides with: when a job is due, when its deadline
/// passes, how much jitter a retry gets. The system's by default; tests inject a clock they
/// move by hand and a seeded generator, so a retry scheduled minutes out runs as soon as the
/// test moves the clock, and its delay is known exactly.
public struct JobClock: Sendable {
    public var now: @Sendable () -> Date
    /// A fresh generator for one decision.
    public var makeRandom: @Sendable () -> any RandomNumberGenerator

    public init(
        now: @escaping @Sendable () -> Date = { Date() },
        makeRandom: @escaping @Sendable () -> any RandomNumberGenerator = { SystemRandomNumberGenerator() }
    ) {
        self.now = now
        self.makeRandom = makeRandom
    }

    /// The wall clock and the system's random numbers.
    public static let system = JobClock()
}
