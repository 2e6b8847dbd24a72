import Foundation
import GatewayJobModel
import Synchronization

/// A wall clock that moves only when a test moves it, with a seeded random sequence: an engine
/// on `jobClock` schedules retries minutes out, and the test jumps to them instead of waiting.
/// Its sleeps end as soon as the test moves the clock past them, so a retry minutes out starts
/// the moment the test jumps to it; they also end after their duration of real time, so a
/// sleep that began just after a jump (the engine was busy) does not wait for another jump.
public final class ManualClock: Sendable {
    private struct Sleeper {
        var until: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var random: SeededRandom
        var sleepers: [UUID: Sleeper] = [:]
    }

    private let state: Mutex<State>

    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000), seed: UInt64 = 42) {
        state = Mutex(State(now: start, random: SeededRandom(seed: seed)))
    }

    public var now: Date { state.withLock { $0.now } }

    public func advance(by seconds: TimeInterval) {
        move { $0.addingTimeInterval(seconds) }
    }

    /// Moves to `date` if it is later than now.
    public func advance(to date: Date) {
        move { max($0, date) }
    }

    private func move(_ change: (Date) -> Date) {
        let woken = state.withLock { state in
            state.now = change(state.now)
            let due = state.sleepers.filter { $0.value.until <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns once the clock has moved `duration` past now, or `duration` of real time passed.
    public func sleep(for duration: Duration) async throws {
        let id = UUID()
        let realTime = Task { [weak self] in
            try? await Task.sleep(for: duration)
            self?.wake(id)
        }
        defer { realTime.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state in
                    let until = state.now.addingTimeInterval(duration.inSeconds)
                    if until <= state.now || Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(until: until, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }

    private func wake(_ id: UUID) {
        state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume()
    }

    /// A generator seeded from the sequence: each decision draws a new, reproducible one.
    public func nextRandom() -> SeededRandom {
        state.withLock { SeededRandom(seed: $0.random.next()) }
    }

    public var jobClock: JobClock {
        JobClock(now: { self.now }, makeRandom: { self.nextRandom() }, sleep: { try await self.sleep(for: $0) })
    }
}
