import Foundation
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

    /// Applies `event` to job `id`; throws `JobTransitionError` when it does not fit.
    @discardableResult
    func apply(_ event: JobStateMachine.Event, to id: UUID) throws -> Job {
        let result = Mutex<[JobStateMachine.Action]>([])
        let job: Job
        do {
            job = try store.update(id: id) { [backoff, clock, cache] job in
                var random = clock.makeRandom()
                let now = clock.now()
                let actions = try job.state.handle(event, now: now, backoff: backoff, random: &random)
                if actions.contains(.publish) {
                    job.revision += 1
                    job.updatedAt = now
                }
                result.withLock { $0 = actions }
                // Inside the write transaction, so concurrent updates reach the cache in order.
                cache.remember(job)
            }
        } catch {
            // The write may not have committed: forget what the closure cached.
            cache.forget(id)
            throw error
        }
        for action in result.withLock({ $0 }) { carryOut(action, for: job) }
        return job
    }

    private func carryOut(_ action: JobStateMachine.Action, for job: Job) {
        switch action {
        case .enqueue: wakeUp.signal()
        case .stopWork: slots.cancel(job.id)
        case .cancelRemote(let remoteID):
            if let converter = router.route(for: job.spec.type)?.converter {
                Task { await converter.cancelRemoteJob(remoteID) }  // a new task: not the cancelled job's
            }
        case .cleanUpStaging: staging.remove(jobID: job.id)
        case .discardDocument:
            // On a blocking thread: this often runs on the job's own task, which a cancel has
            // just cancelled, and GRDB stops a cancelled task's writes halfway.
            let filer = filer
            Task { _ = await runBlocking { try? filer.discardConverted(id: JobEngine.documentID(for: job.id), owner: job.owner) } }
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
