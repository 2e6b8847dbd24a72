import GatewayProcess

/// How a one-shot converter run ended.
package enum OneShotOutcome: Sendable, Equatable {
    case finished(ChildTermination)
    /// The deadline passed: the group was killed.
    case timedOut
    /// The task was cancelled: the group was killed.
    case cancelled
    /// The watchdog stopped the group at one of its resource limits.
    case limitExceeded(ResourceLimits.Kind)
}

/// Runs a converter to completion in a process group of its own, killing the whole group at
/// `deadline`, when the calling task is cancelled, or when it goes past `limits`. No thread
/// waits for it (`ExitMonitor`).
package func runOneShot(_ spec: ChildSpec, deadline: ContinuousClock.Instant, limits: ResourceLimits) async throws(SpawnFailure) -> OneShotOutcome {
    if Task.isCancelled { return .cancelled }
    if ContinuousClock.now >= deadline { return .timedOut }
    let group = try ProcessGroup.start(spec)
    let watch = SandboxWatchdog.shared.watch(group, limits: limits)
    let status = await group.finish(by: deadline)
    SandboxWatchdog.shared.end(watch)
    switch group.stopReason {
    case .deadline: return .timedOut
    case .cancellation: return .cancelled
    case .limit(let kind): return .limitExceeded(kind)
    case .shutdown, nil: return .finished(ChildTermination(waitStatus: status))
    }
}
