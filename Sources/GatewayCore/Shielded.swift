/// Runs `body` to its end even when the calling task is cancelled meanwhile, and awaits it.
///
/// The stores honour cancellation (GRDB interrupts a cancelled task's statement, postgres-nio
/// drops its query), which is right for a read nobody waits for any more and wrong for a write
/// that must not stop halfway through a sequence: a document filed but its job not told, a
/// cancel the client asked for. `body` runs in a task of its own, which does not inherit the
/// caller's cancellation.
///
/// The task starts at once on the caller's thread (`Task.immediate`) rather than being queued
/// for another: every library mutation and job transition passes through here, and a hop to
/// the global executor before its first store call was a thread wake-up each time.
@discardableResult
public func shielded<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await Task.immediate { try await body() }.value
}
