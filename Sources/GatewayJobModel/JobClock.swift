import Foundation

/// The time and the chance the engine decides with: when a job is due, when its deadline
/// passes, how much jitter a retry gets, and how long to sleep before looking again. The
/// system's by default; tests inject a clock they move by hand and a seeded generator, so a
/// retry scheduled minutes out runs as soon as the test moves the clock (which also ends the
/// sleeps), and its delay is known exactly.
public struct JobClock: Sendable {
    public var now: @Sendable () -> Date
    /// A fresh generator for one decision.
    public var makeRandom: @Sendable () -> any RandomNumberGenerator
    /// Waits `duration` of this clock's time; throws `CancellationError` when cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void

    public init(
        now: @escaping @Sendable () -> Date = { Date() },
        makeRandom: @escaping @Sendable () -> any RandomNumberGenerator = { SystemRandomNumberGenerator() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.now = now
        self.makeRandom = makeRandom
        self.sleep = sleep
    }

    /// The wall clock and the system's random numbers.
    public static let system = JobClock()
}
