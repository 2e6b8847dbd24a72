import Foundation
import GatewayJobModel
import Synchronization

/// Who hears about published job changes: listeners to one job (an event stream) and to every
/// job (webhooks, metrics). Tokens remove them.
final class JobObservers: Sendable {
    private let byJob = Mutex<[UUID: [UUID: @Sendable (Job) -> Void]]>([:])
    private let everyJob = Mutex<[UUID: @Sendable (Job) -> Void]>([:])

    func observe(_ id: UUID, _ listener: @escaping @Sendable (Job) -> Void) -> UUID {
        let token = UUID()
        byJob.withLock { $0[id, default: [:]][token] = listener }
        return token
    }

    func observeAll(_ listener: @escaping @Sendable (Job) -> Void) -> UUID {
        let token = UUID()
        everyJob.withLock { $0[token] = listener }
        return token
    }

    func stop(_ id: UUID, token: UUID) {
        byJob.withLock { all in
            all[id]?[token] = nil
            if all[id]?.isEmpty == true { all[id] = nil }
        }
    }

    func stopAll(token: UUID) { _ = everyJob.withLock { $0.removeValue(forKey: token) } }

    /// The jobs someone listens to one by one (event streams).
    func watchedIDs() -> [UUID] { byJob.withLock { Array($0.keys) } }

    /// Tells the listeners to this one job (not those to every job) about a change another
    /// engine made: this engine's webhooks and metrics are for its own writes.
    func publishToWatchers(_ job: Job) {
        for listener in byJob.withLock({ Array(($0[job.id] ?? [:]).values) }) { listener(job) }
    }

    /// Tells everyone listening about `job`'s new state, outside the locks.
    func publish(_ job: Job) {
        let listeners = byJob.withLock { Array(($0[job.id] ?? [:]).values) } + everyJob.withLock { Array($0.values) }
        for listener in listeners { listener(job) }
    }
}
