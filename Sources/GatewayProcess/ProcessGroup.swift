import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A process group we started: a leader in a group of its own, and whatever it forks.
///
/// Converters fork helpers of their own (oosplash → soffice.bin, Chromium's zygote and renderers,
/// Calibre's worker pool), so only signalling the whole group reliably stops them. The group id
/// is the leader's pid and is only ever signalled while the leader is unreaped: until then the
/// kernel cannot hand that id to anyone else.
///
/// Why not swift-subprocess (1.0.2): its `run` reaps the child itself as soon as it exits (so the
/// group id could be recycled before we kill the helpers the leader left behind), closes every
/// descriptor above stderr in the child (the sandbox hands Chromium's proxy listener over on
/// fd 3), and scopes a child to one closure, while a warm worker outlives every call that uses
/// it. So children are started with `posix_spawn` here, and `ExitMonitor` waits for them.
package final class ProcessGroup: Sendable {
    /// The leader's pid, which is also the group id.
    package let id: pid_t
    private let state = Mutex(State())

    private struct State {
        var leaderReaped = false
        var status: Int32 = 0
        var stopReason: StopReason?
    }

    private init(leader: pid_t) {
        id = leader
    }

    deinit {
        // Normally reaped by `killAndReap`; this only guards against leaking a live group.
        if !state.withLock({ $0.leaderReaped }) { killAndReapNow() }
    }

    /// Starts `spec` as the leader of a new process group.
    package static func start(_ spec: ChildSpec) throws(SpawnFailure) -> ProcessGroup {
        ProcessGroup(leader: try Spawn.spawn(spec, processGroup: 0))
    }

    /// SIGKILLs every process in the group (helpers included), recording why; safe from any thread.
    package func stop(_ reason: StopReason) {
        state.withLock { state in
            if state.stopReason == nil { state.stopReason = reason }
            if !state.leaderReaped { kill(-id, SIGKILL) }
        }
    }

    /// The first reason `stop` was called with, if it was.
    package var stopReason: StopReason? { state.withLock { $0.stopReason } }

    /// Whether the leader has not exited yet. Non-blocking and non-reaping.
    package var isRunning: Bool {
        if state.withLock({ $0.leaderReaped }) { return false }
        return !ExitMonitor.hasExited(id)
    }

    /// Waits until the leader exits, without reaping it (so the group id stays ours). Returns
    /// false, early, when the task is cancelled.
    package func exited() async -> Bool {
        if !isRunning { return true }
        let registration = Registration()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let watch = ExitMonitor.shared.watch(id) { exited in continuation.resume(returning: exited) }
                if registration.record(watch) { ExitMonitor.shared.cancel(watch) }
            }
        } onCancel: {
            if let watch = registration.cancel() { ExitMonitor.shared.cancel(watch) }
        }
    }

    /// A watch and a cancellation that may come in either order.
    private final class Registration: Sendable {
        private let state = Mutex<(watch: ExitMonitor.Watch?, cancelled: Bool)>((nil, false))

        /// Keeps `watch`; true when the task was cancelled already.
        func record(_ watch: ExitMonitor.Watch) -> Bool {
            state.withLock { state in
                state.watch = watch
                return state.cancelled
            }
        }

        /// Marks the task cancelled; the watch to cancel, if recorded.
        func cancel() -> ExitMonitor.Watch? {
            state.withLock { state in
                state.cancelled = true
                return state.watch
            }
        }
    }

    /// Waits until the leader exits or `deadline` passes; true when it exited.
    package func exited(by deadline: ContinuousClock.Instant) async -> Bool {
        await withTaskGroup(of: Bool.self) { waits in
            waits.addTask { await self.exited() }
            waits.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            let first = await waits.next() ?? false
            waits.cancelAll()
            return first
        }
    }

    /// Waits for the leader to end, killing the group at `deadline` or when the task is
    /// cancelled (`stopReason` then says which); then kills whatever is left of the group and
    /// reaps the leader. Returns its wait status.
    package func finish(by deadline: ContinuousClock.Instant) async -> Int32 {
        let ended = await withTaskCancellationHandler {
            await exited(by: deadline)
        } onCancel: {
            stop(.cancellation)
        }
        if !ended { stop(.deadline) }
        return await killAndReap()
    }

    /// Kills whatever is left of the group (helpers the leader left behind go with it) and reaps
    /// the leader; returns its wait status. Waits without a thread of its own, whether or not
    /// the task is cancelled: SIGKILL is prompt. Only one caller reaps; others get 0.
    @discardableResult
    package func killAndReap() async -> Int32 {
        let live = state.withLock { state in
            if !state.leaderReaped { kill(-id, SIGKILL) }
            return !state.leaderReaped
        }
        guard live else { return state.withLock { $0.status } }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            _ = ExitMonitor.shared.watch(id) { _ in continuation.resume() }
        }
        // The leader is a zombie now: nothing blocks below.
        return reap()
    }

    /// Waits for the leader to end on its own and reaps it, leaving whatever else it started
    /// in the group running (a daemon it launched on purpose); when the task is cancelled first,
    /// kills the group instead. Returns the leader's wait status.
    package func reapWhenExited() async -> Int32 {
        await exited() ? reap() : await killAndReap()
    }

    /// `reapWhenExited` for a thread that may block: waits in `waitpid` itself.
    package func reapWhenExitedNow() -> Int32 {
        reap()
    }

    /// Sends `signal` to the leader alone (a SIGTERM an operator would send), while it is ours to
    /// signal: never once it has been reaped and its pid may belong to someone else.
    package func signalLeader(_ signal: Int32) {
        state.withLock { state in
            if !state.leaderReaped { kill(id, signal) }
        }
    }

    /// `killAndReap` for a thread that may block (and for `deinit`).
    @discardableResult
    package func killAndReapNow() -> Int32 {
        state.withLock { state in
            if !state.leaderReaped { kill(-id, SIGKILL) }
        }
        return reap()
    }

    private func reap() -> Int32 {
        let first = state.withLock { state in
            // From here on the id may be recycled: never signal it again.
            defer { state.leaderReaped = true }
            return !state.leaderReaped
        }
        guard first else { return state.withLock { $0.status } }
        var status: Int32 = 0
        while waitpid(id, &status, 0) < 0, errno == EINTR {}
        state.withLock { $0.status = status }
        return status
    }
}
