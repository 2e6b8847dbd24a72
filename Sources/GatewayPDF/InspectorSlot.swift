import Foundation
import Synchronization

/// One worker's place in `PDFInspectorPool`: it starts its worker on first use, keeps it between
/// inspections, and starts a fresh one when the last one died, timed out or misbehaved. The pool
/// lends a slot to one inspection at a time.
final class InspectorSlot: Sendable {
    private let state = Mutex(State())

    private struct State {
        var worker: InspectorWorker?
        /// An inspection is talking to the worker.
        var busy = false
    }

    /// Whether the slot holds a worker from an earlier inspection (`ready` may hand it out again).
    var hasWorker: Bool { state.withLock { $0.worker != nil } }

    /// The slot's worker if it survived idling, else a fresh one (the old one killed and reaped).
    func ready(_ configuration: PDFInspectorPool.Configuration) async throws -> InspectorWorker {
        let current = state.withLock { $0.worker }
        // Nothing to wait for in the common case: the health check reads flags, no socket.
        if let current, current.isHealthy() { return current }
        if let current {
            forget(current)
            await current.terminate()
        }
        let fresh = try await InspectorWorker.spawn(
            executable: configuration.executable,
            memoryLimitBytes: configuration.memoryLimitBytes,
            niceness: configuration.niceness
        )
        state.withLock { $0.worker = fresh }
        return fresh
    }

    /// Drops `worker`, which its failed exchange already reaped.
    func forget(_ worker: InspectorWorker) {
        state.withLock { state in
            if state.worker === worker { state.worker = nil }
        }
    }

    /// Kills, reaps and drops `worker`, which broke the protocol.
    func discard(_ worker: InspectorWorker) async {
        forget(worker)
        await worker.terminate()
    }

    func setBusy(_ busy: Bool) {
        state.withLock { $0.busy = busy }
    }

    /// The live worker's pid and whether an inspection is using it, for tests.
    var worker: (pid: pid_t, busy: Bool)? {
        state.withLock { state in state.worker.map { ($0.pid, state.busy) } }
    }

    /// Ends the worker gracefully (stdin closed, SIGKILL after a second).
    func shutDown() async {
        let worker = state.withLock { state in
            defer { state.worker = nil }
            return state.worker
        }
        await worker?.shutDown()
    }
}
