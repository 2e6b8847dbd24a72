import Foundation
import GatewayCore
import GatewayJobModel
import GatewayLibraryModel
import Logging
import Synchronization

/// Applies an event to a job through its state machine, writes the result, and carries out the
/// actions the state machine returned. Every status change of every job goes through here.
struct JobRecorder: Sendable {
    let store: any JobStore
    let cache: JobCache
    let observers: JobObservers
    let slots: SlotLedger
    let wakeUp: WakeUp
    let router: ConverterRouter
    let staging: any InputStaging
    let filer: any DocumentFiler
    let backoff: BackoffPolicy
    let clock: JobClock

    /// Applies `event` to job `id`; throws `JobTransitionError` when it does not fit, and
    /// `LeaseMismatch` when `onlyIf` refuses the job's lease as stored.
    @discardableResult
    func apply(_ event: JobStateMachine.Event, to id: UUID, onlyIf condition: (@Sendable (Job) -> Bool)? = nil) async throws -> Job {
        let result = Mutex<[JobStateMachine.Action]>([])
        let job: Job
        do {
            job = try await store.update(id: id) { job in
                if let condition, !condition(job) { throw LeaseMismatch(id: id) }
                let done = try transition(&job, event, lease: nil)
                result.withLock { $0 = done }
            }
        } catch {
            // The write may not have committed: forget what the closure cached.
            cache.forget(id)
            throw error
        }
        for action in result.withLock({ $0 }) { carryOut(action, for: job) }
        return job
    }

    /// Claims up to `limit` due jobs of `types` for this engine: each is started (`.started`)
    /// and leased with `lease` in the store's transaction. Answers the jobs claimed.
    func claim(types: Set<JobType>, limit: Int, lease: JobLease) async throws -> [Job] {
        let actions = Mutex<[UUID: [JobStateMachine.Action]]>([:])
        let claimed: [Job]
        do {
            claimed = try await store.claimDue(now: clock.now(), types: types, limit: limit, lease: lease) { job in
                let done = try transition(&job, .started, lease: lease)
                actions.withLock { $0[job.id] = done }
            }
        } catch {
            for id in actions.withLock({ Array($0.keys) }) { cache.forget(id) }
            throw error
        }
        for job in claimed {
            for action in actions.withLock({ $0[job.id] ?? [] }) { carryOut(action, for: job) }
        }
        return claimed
    }

    /// The state machine's step, inside the store's write: the job changes, its revision moves
    /// when the change is published, and only a PROCESSING job keeps a lease.
    private func transition(_ job: inout Job, _ event: JobStateMachine.Event, lease: JobLease?) throws -> [JobStateMachine.Action] {
        var random = clock.makeRandom()
        let now = clock.now()
        let done = try job.state.handle(event, now: now, backoff: backoff, random: &random)
        if done.contains(.publish) {
            job.revision += 1
            job.updatedAt = now
        }
        if let lease { job.lease = lease }
        if job.state.status != .processing { job.lease = nil }
        // Inside the write transaction, so concurrent updates reach the cache in order.
        cache.remember(job)
        return done
    }

    private func carryOut(_ action: JobStateMachine.Action, for job: Job) {
        switch action {
        case .enqueue: wakeUp.signal()
        case .stopWork: slots.cancel(job.id)
        case .cancelRemote(let remoteID):
            if let converter = router.route(for: job.spec.type)?.converter {
                // A new task, not the cancelled job's; nobody awaits it: one best-effort call,
                // bounded by its own timeout.
                Task { await converter.cancelRemoteJob(remoteID) }
            }
        case .cleanUpStaging: staging.remove(jobID: job.id)
        case .discardDocument:
            // In a task of its own: this often runs on the job's own task, which a cancel has
            // just cancelled, and the stores stop a cancelled task's writes.
            let filer = filer
            // A split files its parts in order, so they end at the first one missing. Nobody
            // awaits it: a few file removals, each its own transaction.
            Task {
                for part in 0..<PDFOperation.maxParts {
                    let id = Job.documentID(for: job.id, part: part)
                    guard (try? await filer.discardConverted(id: id, owner: job.owner)) == true else { break }
                }
                filer.discardResult(jobID: job.id)
            }
        case .publish: observers.publish(job)
        }
    }
}

/// Wakes the scheduler: something became due (a job queued, a slot freed).
struct WakeUp: Sendable {
    let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        // One pending signal is enough: the scheduler looks at everything due when it wakes.
        (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func signal() { continuation.yield() }
}

/// The job's lease is not what this engine expected: another engine renewed the lease of a job
/// this one meant to take over, or took over a job this one was still running.
struct LeaseMismatch: GatewayError {
    var id: UUID
    var code: String { "lease_mismatch" }
    var message: String { "job \(id.lowercased) is leased by another engine" }
}
