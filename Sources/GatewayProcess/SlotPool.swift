import Dispatch
import Synchronization

/// Hands out a fixed set of slots, one holder each (the warm converters' workers, the PDF
/// inspector's): waiters are suspended, not parked on a thread, and served first come, first
/// served; a waiter whose task is cancelled or whose deadline passes leaves the queue at once.
package final class SlotPool<Slot: Sendable>: Sendable {
    /// Thrown to waiters and new callers once `shutDown` has been called.
    package struct ShutDown: Error {}
    /// Thrown when the deadline passes before a slot frees up.
    package struct TimedOut: Error {}

    package let slots: [Slot]
    /// Gets a slot its holder returns after `shutDown`, which found it busy.
    private let afterShutDown: @Sendable (Slot) async -> Void
    private let state: Mutex<State>

    private struct State {
        /// Most recently released last, so the warmest slot is reused first.
        var idle: [Slot]
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Slot, any Error>)] = []
        var nextWaiterID: UInt64 = 0
        var isShutDown = false
    }

    /// `afterShutDown` ends a slot that was busy when the pool shut down, once its holder is done.
    package init(_ slots: [Slot], afterShutDown: @escaping @Sendable (Slot) async -> Void = { _ in }) {
        self.slots = slots
        self.afterShutDown = afterShutDown
        state = Mutex(State(idle: slots.reversed()))
    }

    /// Runs `body` with a slot of its own, waiting for one (until `deadline`, if any) while all
    /// are busy.
    package func withSlot<R: Sendable>(deadline: ContinuousClock.Instant? = nil, _ body: (Slot) async throws -> R) async throws -> R {
        let slot = try await acquire(deadline: deadline)
        let result: Result<R, any Error>
        do {
            result = .success(try await body(slot))
        } catch {
            result = .failure(error)
        }
        if release(slot) { await afterShutDown(slot) }
        return try result.get()
    }

    /// Refuses new work and fails every waiter; returns the slots that were idle.
    package func shutDown() -> [Slot] {
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

    private func acquire(deadline: ContinuousClock.Instant?) async throws -> Slot {
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
                    if let deadline, ContinuousClock.now >= deadline { return .failure(TimedOut()) }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let decision {
                    continuation.resume(with: decision)
                } else if let deadline {
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

    /// Hands `slot` to the first waiter, or back to the idle ones; true when the pool has shut
    /// down meanwhile, so the slot is the caller's to end.
    private func release(_ slot: Slot) -> Bool {
        let (waiter, afterShutDown) = state.withLock { state -> (CheckedContinuation<Slot, any Error>?, Bool) in
            if state.isShutDown { return (nil, true) }
            if !state.waiters.isEmpty { return (state.waiters.removeFirst().continuation, false) }
            state.idle.append(slot)
            return (nil, false)
        }
        waiter?.resume(returning: slot)
        return afterShutDown
    }
}

/// The `DispatchTime` matching a `ContinuousClock` instant (both are monotonic).
private func dispatchTime(for deadline: ContinuousClock.Instant) -> DispatchTime {
    let remaining = ContinuousClock.now.duration(to: deadline)
    guard remaining > .zero else { return .now() }
    let (seconds, attoseconds) = remaining.components
    let nanoseconds = min(seconds, 365 * 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000
    return .now() + .nanoseconds(Int(nanoseconds))
}
