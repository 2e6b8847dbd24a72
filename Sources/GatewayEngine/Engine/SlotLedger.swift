import Foundation
import Synchronization

/// The attempts running now, each with the backend slot it holds: one map under one lock, so
/// "is there a free slot", "start this", "cancel that" and "it ended" never disagree.
final class SlotLedger: Sendable {
    private struct Attempt {
        var task: Task<Void, Never>
        var converter: String
    }

    private let attempts = Mutex<[UUID: Attempt]>([:])

    func inUse(by converter: String) -> Int {
        attempts.withLock { $0.values.count(where: { $0.converter == converter }) }
    }

    func isRunning(_ id: UUID) -> Bool { attempts.withLock { $0[id] != nil } }

    /// The jobs with an attempt running here: the leases this engine renews.
    var runningIDs: [UUID] { attempts.withLock { Array($0.keys) } }

    /// Runs `body` for job `id` in a slot of `converter`, then frees the slot and calls `ended`.
    func start(_ id: UUID, converter: String, _ body: @escaping @Sendable () async -> Void, ended: @escaping @Sendable () -> Void) {
        // Cancelled by `cancel(_:)` or a shutdown's grace running out; awaited by the
        // scheduler's drain. Registered under the lock the task's own removal takes, so the
        // removal cannot come first.
        attempts.withLock { attempts in
            attempts[id] = Attempt(
                task: Task { [self] in
                    await body()
                    _ = self.attempts.withLock { $0.removeValue(forKey: id) }
                    ended()
                },
                converter: converter
            )
        }
    }

    /// Stops job `id`'s attempt, if one runs.
    func cancel(_ id: UUID) { attempts.withLock { $0[id] }?.task.cancel() }

    /// Every running attempt's task: what a shutdown waits for.
    var tasks: [Task<Void, Never>] { attempts.withLock { $0.values.map(\.task) } }
}
