import Dispatch
import Synchronization

/// Hands out a fixed set of slots, one holder each: waiters are served first come, first served,
/// and a waiter whose task is cancelled leaves the queue at once.
final class SlotPool<Slot: Sendable>: Sendable {
    /// Thrown to waiters and new callers once `shutDown` has been called.
    struct ShutDown: Error {}
    /// Thrown when the deadline passes before a slot frees up.
    struct TimedOut: Error {}

    let slots: [Slot]
    private let state: Mutex<State>

    private struct State {
        /// Most recently released last, so the warmest slot is reused first.
        var idle: [Slot]
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Slot, any Error>)] = []
        var nextWaiterID: UInt64 = 0
        var isShutDown = false
    }

    init(_ slots: [Slot]) {
        self.slots = slots
        state = Mutex(State(idle: slots.reversed()))
    }

    /// Runs `body` with a slot of its own, waiting for one (until `deadline`) if all are busy.
    func withSlot<R: Sendable>(deadline: ContinuousClock.Instant, _ body: (Slot) async throws -> R) async throws -> R {
        let slot = try await acquire(deadline: deadline)
        defer { release(slot) }
        return try await body(slot)
    }

    /// Refuses new work and fails every waiter; returns the slots that were idle.
    func shutDown() -> [Slot] {
        let (idle, waiters) = state.withLock { state in
            state.isShutDown = true
            defer {
                state.idle = []
                state.waiters = []
            }
            return (state.idle, state.waiters)
        }
        for waiter in waiters { waiter.continuation.resume(throwing: ShutDown()) }
        return idle
    }

    private func acquire(deadline: ContinuousClock.Instant) async throws -> Slot {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Slot, any Error>) in
                let decision: Result<Slot, any Error>? = state.withLock { state in
                    if state.isShutDown { return .failure(ShutDown()) }
                    // Checked under the lock: a cancellation either sees our waiter or we see it.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if let slot = state.idle.popLast() { return .success(slot) }
                    if ContinuousClock.now >= deadline { return .failure(TimedOut()) }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let decision {
                    continuation.resume(with: decision)
                } else {
                    DispatchQueue.global().asyncAfter(deadline: dispatchTime(for: deadline)) { [self] in
                        removeWaiter(id, throwing: TimedOut())
                    }
                }
            }
        } onCancel: {
            removeWaiter(id, throwing: CancellationError())
        }
    }

    /// Fails a waiter that is still queued; one already served is left alone.
    private func removeWaiter(_ id: UInt64, throwing error: any Error) {
        let waiter = state.withLock { state in
            state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0) }
        }
        waiter?.continuation.resume(throwing: error)
    }

    private func release(_ slot: Slot) {
        let waiter = state.withLock { state -> CheckedContinuation<Slot, any Error>? in
            if !state.waiters.isEmpty { return state.waiters.removeFirst().continuation }
            state.idle.append(slot)
            return nil
        }
        waiter?.resume(returning: slot)
    }
}
