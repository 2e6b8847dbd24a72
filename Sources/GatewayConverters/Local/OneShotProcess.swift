import Dispatch
import Foundation
import GatewayCore

/// How a one-shot converter run ended.
enum OneShotOutcome: Sendable, Equatable {
    case finished(ChildTermination)
    /// The deadline passed: the group was killed.
    case timedOut
    /// The task was cancelled: the group was killed.
    case cancelled
    /// The watchdog stopped the group at one of its resource limits.
    case limitExceeded(ResourceLimits.Kind)
}

/// Runs a converter to completion in a process group of its own, killing the whole group at
/// `deadline`, when the calling task is cancelled, or when it goes past `limits`. Waiting
/// happens on a dedicated thread.
func runOneShot(_ spec: ChildSpec, deadline: ContinuousClock.Instant, limits: ResourceLimits) async throws(SpawnFailure) -> OneShotOutcome {
    if Task.isCancelled { return .cancelled }
    if ContinuousClock.now >= deadline { return .timedOut }
    let group = try ProcessGroup.start(spec)
    let (status, stop) = await group.supervise(until: deadline, limits: limits) {
        group.waitForLeaderExit()
        // Helpers the leader left behind (renderers, worker pools) go with it.
        return group.killAndReap()
    }
    switch stop {
    case .deadline: return .timedOut
    case .cancellation: return .cancelled
    case .limit(let kind): return .limitExceeded(kind)
    case .shutdown, nil: return .finished(ChildTermination(waitStatus: status))
    }
}

extension ProcessGroup {
    /// Runs `body` (which waits on the group) on a blocking thread while the group is killed at
    /// `deadline`, when the task is cancelled, or past `limits`; returns its result and why the
    /// group was stopped, if it was.
    func supervise<T: Sendable>(
        until deadline: ContinuousClock.Instant,
        limits: ResourceLimits,
        _ body: @escaping @Sendable () -> T
    ) async -> (T, StopReason?) {
        let watch = SandboxWatchdog.shared.watch(self, limits: limits)
        defer { SandboxWatchdog.shared.end(watch) }
        let timer = DispatchWorkItem { self.stop(.deadline) }
        DispatchQueue.global().asyncAfter(deadline: dispatchTime(for: deadline), execute: timer)
        let result = await withTaskCancellationHandler {
            await runBlocking(body)
        } onCancel: {
            self.stop(.cancellation)
        }
        timer.cancel()
        return (result, stopReason)
    }
}

/// The `DispatchTime` matching a `ContinuousClock` instant (both are monotonic).
func dispatchTime(for deadline: ContinuousClock.Instant) -> DispatchTime {
    let remaining = ContinuousClock.now.duration(to: deadline)
    guard remaining > .zero else { return .now() }
    let (seconds, attoseconds) = remaining.components
    let nanoseconds = min(seconds, 365 * 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000
    return .now() + .nanoseconds(Int(nanoseconds))
}
