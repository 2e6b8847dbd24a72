import Foundation
import GatewayCore
import Synchronization

/// A wall clock that moves only when a test moves it, with a seeded random sequence: an engine
/// on `jobClock` schedules retries minutes out, and the test jumps to them instead of waiting.
public final class ManualClock: Sendable {
    private let state: Mutex<(now: Date, random: SeededRandom)>

    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000), seed: UInt64 = 42) {
        state = Mutex((start, SeededRandom(seed: seed)))
    }

    public var now: Date { state.withLock { $0.now } }

    public func advance(by seconds: TimeInterval) {
        state.withLock { $0.now = $0.now.addingTimeInterval(seconds) }
    }

    /// Moves to `date` if it is later than now.
    public func advance(to date: Date) {
        state.withLock { $0.now = max($0.now, date) }
    }

    /// A generator seeded from the sequence: each decision draws a new, reproducible one.
    public func nextRandom() -> SeededRandom {
        state.withLock { SeededRandom(seed: $0.random.next()) }
    }

    public var jobClock: JobClock {
        JobClock(now: { self.now }, makeRandom: { self.nextRandom() })
    }
}
