import Synchronization

/// A lock for tasks, first come first served: a task that waits for it is suspended, and its
/// thread goes on with other work. What it guards may await (a database write, a lock another
/// process holds), which a `Mutex` must never be held across.
///
/// Waiting is not cancellable: what waits here is a short step that must not be left half done.
package final class AsyncLock: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// The first waiter still queued: handing the lock on is O(1), the array compacted now and then.
        var next = 0
    }

    private let state = Mutex(State())

    package init() {}

    package func lock() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state -> Bool in
                guard state.locked else {
                    state.locked = true
                    return true
                }
                state.waiters.append(waiter)
                return false
            }
            if acquired { waiter.resume() }
        }
    }

    /// Hands the lock to the longest waiter, or frees it.
    package func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.next < state.waiters.count else {
                state.waiters.removeAll(keepingCapacity: true)
                state.next = 0
                state.locked = false
                return nil
            }
            let waiter = state.waiters[state.next]
            state.next += 1
            if state.next >= 64 && state.next * 2 >= state.waiters.count {
                state.waiters.removeFirst(state.next)
                state.next = 0
            }
            return waiter
        }
        next?.resume()
    }

    /// Runs `body` holding the lock.
    package func withLock<T>(_ body: () async throws -> T) async rethrows -> T {
        await lock()
        defer { unlock() }
        return try await body()
    }
}
