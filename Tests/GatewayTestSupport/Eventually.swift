import Foundation
import GatewayCore

/// A state a test waited for that did not come before its deadline, or one that did not last.
public struct WaitFailure: Error, CustomStringConvertible {
    /// The state waited for, and how long.
    public var description: String
}

/// Returns as soon as `condition` holds, checking it every `poll`; throws, naming `what`, when it
/// still does not hold after `limit`. For states the code offers no event for: a row in a store, a
/// file on disk, a process gone.
///
///     try await eventually("the job is cancelled") { try await store.job(id: id)?.status == .cancelled }
public func eventually(
    _ what: @autoclosure () -> String,
    within limit: Duration = .seconds(30),
    poll: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    _ = try await until(what(), within: limit, poll: poll) { try await condition() ? true : nil }
}

/// Returns the first value `produce` gives that is not nil, asking every `poll`; throws, naming
/// `what`, when none came within `limit`.
///
///     let pid = try await until("the worker's pid") { pool.workerPIDs().busy.first }
public func until<Value>(
    _ what: @autoclosure () -> String,
    within limit: Duration = .seconds(30),
    poll: Duration = .milliseconds(20),
    _ produce: () async throws -> Value?
) async throws -> Value {
    let deadline = ContinuousClock.now + limit
    while true {
        if let value = try await produce() { return value }
        guard ContinuousClock.now < deadline else { throw WaitFailure(description: "not within \(limit.inWords): \(what())") }
        try await Task.sleep(for: poll)
    }
}

/// Checks `condition` every `poll` for `window` and throws, naming `what`, the first time it
/// does not hold: for a state that must last (a job left queued, nothing delivered again), where
/// time itself is what is checked.
///
///     try await keepsHolding("the job stays queued", for: .milliseconds(500)) { try await status() == .queued }
public func keepsHolding(
    _ what: @autoclosure () -> String,
    for window: Duration,
    poll: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async throws {
    let end = ContinuousClock.now + window
    while true {
        guard try await condition() else { throw WaitFailure(description: "did not hold for \(window.inWords): \(what())") }
        guard ContinuousClock.now < end else { return }
        try await Task.sleep(for: poll)
    }
}

/// The blocking form of `eventually`, for a thread of its own (a loopback handler, a synchronous
/// driver such as the headless browser's): checks `condition` every `poll` until it holds, and
/// throws, naming `what`, once `limit` has passed.
public func eventuallyOnThisThread(
    _ what: @autoclosure () -> String,
    within limit: Duration = .seconds(30),
    poll: Duration = .milliseconds(20),
    _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + limit
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw WaitFailure(description: "not within \(limit.inWords): \(what())") }
        Thread.sleep(forTimeInterval: poll.inSeconds)
    }
}

/// Runs `action` once `limit` has passed, unless the returned task is cancelled first: the time
/// limit of a wait on events (a stream to finish, a task to cancel).
///
///     let timeout = afterTimeLimit(.seconds(30)) { continuation.finish() }
///     defer { timeout.cancel() }
@discardableResult
public func afterTimeLimit(_ limit: Duration, _ action: @escaping @Sendable () -> Void) -> Task<Void, Never> {
    Task {
        guard (try? await Task.sleep(for: limit)) != nil else { return }
        action()
    }
}

/// Runs `sample` after each `interval` until the returned task is cancelled: a sampler of what
/// has no event (a thread count), or a ticker whose ticks show the cooperative pool is free.
public func sampling(every interval: Duration, _ sample: @escaping @Sendable () -> Void) -> Task<Void, Never> {
    Task {
        while (try? await Task.sleep(for: interval)) != nil { sample() }
    }
}
