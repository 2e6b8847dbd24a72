import Foundation
import GatewayJobModel
import Logging
import Synchronization

/// Starts due jobs as backend slots free up, each claimed with a lease it renews while the job
/// runs: resumes what a restart interrupted or a dead engine left, sweeps staging, fails jobs
/// whose deadline passed while nothing ran for them, and on shutdown gives running attempts a
/// grace period.
final class JobScheduler: Sendable {
    let recorder: JobRecorder
    let pipeline: AttemptPipeline
    let idlePoll: Duration
    let shutdownGrace: Duration
    let leaseDuration: Duration
    let sharesStore: Bool
    let node: String
    let outages: ConverterOutages
    let logger: Logger
    /// When this engine was made: staging entries last changed well before it belong to a dead process.
    let startedAt = Date()
    private let lastExpirySweep = Mutex<Date?>(nil)
    private let lastRenewal = Mutex<Date?>(nil)
    private let running = Mutex(false)
    /// Jobs this engine took over from engines whose leases lapsed, since start.
    let takeovers = Atomic<Int>(0)

    init(recorder: JobRecorder, pipeline: AttemptPipeline, outages: ConverterOutages, configuration: JobEngine.Configuration, logger: Logger) {
        self.recorder = recorder
        self.pipeline = pipeline
        self.outages = outages
        idlePoll = configuration.idlePoll
        shutdownGrace = configuration.shutdownGrace
        leaseDuration = configuration.lease
        sharesStore = configuration.sharesStore
        node = configuration.node
        self.logger = logger
    }

    // What the recorder carries out its actions with is what the scheduler schedules with.
    var store: any JobStore { recorder.store }
    var router: ConverterRouter { recorder.router }
    var slots: SlotLedger { recorder.slots }
    var wakeUp: WakeUp { recorder.wakeUp }
    var staging: any InputStaging { recorder.staging }
    var clock: JobClock { recorder.clock }

    /// Works until the task is cancelled; a second call returns at once (the wake-up stream has
    /// one reader).
    func run() async {
        let first = running.withLock { running in
            defer { running = true }
            return !running
        }
        guard first else { return }
        await resumeAfterRestart()
        var iterator = wakeUp.stream.makeAsyncIterator()
        await withTaskGroup(of: Void.self) { group in
            // One timer keeps retries with a `not_before` moving even when nothing wakes us. It
            // sleeps on the job clock, so a test that moves the clock moves the retries.
            group.addTask { [wakeUp, clock, idlePoll] in
                while !Task.isCancelled {
                    try? await clock.sleep(idlePoll)
                    wakeUp.signal()
                }
            }
            // Files staged where every node reaches them (a bucket) outlive the job that staged
            // them when its node went away: an hourly pass removes those of ended jobs.
            group.addTask { [staging, store] in
                while !Task.isCancelled {
                    _ = await staging.sweepShared(changedBefore: Date().addingTimeInterval(-3600)) { id in
                        guard let job = try await store.job(id: id) else { return false }
                        return !job.state.status.isTerminal
                    }
                    try? await Task.sleep(for: .seconds(3600))
                }
            }
            while !Task.isCancelled {
                await startDueJobs()
                _ = await iterator.next()
            }
            group.cancelAll()
        }
        await drain()
    }

    /// Lets running attempts finish within the grace period; past it they are cancelled and
    /// their jobs, still PROCESSING, resume at the next start.
    private func drain() async {
        let tasks = slots.tasks
        let grace = shutdownGrace
        // Detached: the engine's own task is cancelled by now, and a child would inherit that.
        // Cancelled below once every attempt has ended.
        let timer = Task.detached {
            try? await Task.sleep(for: grace)
            for task in tasks { task.cancel() }
        }
        for task in tasks { await task.value }
        timer.cancel()
    }

    private func resumeAfterRestart() async {
        // Alone on its store, the engine knows every PROCESSING job was its own before the
        // restart. Sharing it, it leaves them to their leases: `takeOverLapsedLeases`.
        do {
            for job in try await store.unfinished() where job.state.status == .queued || (job.state.status == .processing && !sharesStore) {
                _ = try? await recorder.apply(.resumedAfterRestart, to: job.id)
            }
        } catch {
            logFailure("jobs.resume_failed", error)
        }
        // What this process creates meanwhile (a job's directory exists a moment before its row)
        // must stay, and the kernel stamps files from a coarse clock that can read a little
        // behind `Date()`: only entries changed well before this engine was made go.
        let removed = await staging.sweep(changedBefore: startedAt.addingTimeInterval(-2)) { id in
            guard let job = try await store.job(id: id) else { return false }
            return !job.state.status.isTerminal
        }
        if removed > 0 { logger.notice("jobs.staging_swept", metadata: ["removed": "\(removed)"]) }
    }

    /// Fails jobs whose deadline passed while nothing ran for them: a file job never uploaded, a
    /// job still waiting for a slot behind slower ones. Once a second (an indexed read), so such
    /// a job ends within about a second of its deadline.
    private func expireIdleJobs() async {
        let now = clock.now()
        let due = lastExpirySweep.withLock { last in
            guard last.map({ now.timeIntervalSince($0) >= 1 || now < $0 }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        do {
            for job in try await store.expired(now: now, limit: 256) { _ = try? await recorder.apply(.deadlinePassed, to: job.id) }
        } catch {
            logFailure("jobs.expiry_failed", error)
        }
        await takeOverLapsedLeases(now: now)
    }

    /// Resumes the jobs of engines that died: PROCESSING, their lease lapsed. The lease is
    /// checked again inside the write, so a lease renewed meanwhile keeps its job; a remote job
    /// resumes polling its remote id, a local one starts again from its staged input.
    private func takeOverLapsedLeases(now: Date) async {
        do {
            for job in try await store.lapsedLeases(now: now, limit: 64) {
                let lapsed = try? await recorder.apply(.resumedAfterRestart, to: job.id) { stored in
                    stored.state.status == .processing && (stored.lease.map { $0.expires < now } ?? true)
                }
                if lapsed != nil {
                    takeovers.add(1, ordering: .relaxed)
                    logger.notice("jobs.lease_taken_over", metadata: ["job": "\(job.id.lowercased)", "from": "\(job.lease?.node ?? "?")"])
                }
            }
        } catch {
            logFailure("jobs.takeover_failed", error)
        }
    }

    /// Renews this engine's leases every third of their length. A job whose lease another
    /// engine took over (this one stalled past it) stops here: it runs there now.
    private func renewLeases() async {
        let now = clock.now()
        let due = lastRenewal.withLock { last in
            guard last.map({ now.timeIntervalSince($0) >= leaseDuration.inSeconds / 3 || now < $0 }) ?? true else { return false }
            last = now
            return true
        }
        let running = slots.runningIDs
        guard due, !running.isEmpty else { return }
        do {
            let held = try await store.renewLeases(running, lease: lease(from: now))
            for id in running where !held.contains(id) && slots.isRunning(id) {
                logger.warning("jobs.lease_lost", metadata: ["job": "\(id.lowercased)"])
                slots.cancel(id)
            }
        } catch {
            logFailure("jobs.lease_renewal_failed", error)
        }
    }

    /// Logs a store step that failed; not the cancellation a shutdown brings, which stops the
    /// step where it was (the store rolls back what it had not committed).
    private func logFailure(_ event: Logger.Message, _ error: any Error) {
        guard !(error is CancellationError) else { return }
        logger.error(event, metadata: ["error": "\(error)"])
    }

    private func lease(from now: Date) -> JobLease {
        JobLease(node: node, expires: now.addingTimeInterval(leaseDuration.inSeconds))
    }

    /// Asks the converter of each type that is out whether it starts again, in the background; a
    /// type that passes is taken back into service at once.
    private func recheckOutages() {
        for type in outages.dueChecks(now: Date()) {
            let converter = router.route(for: type)?.converter
            // Not awaited: a start check ends on its own (its tool's or the sandbox's time
            // limit), and the scheduler does not wait for it.
            Task { [outages, wakeUp, logger] in
                if let failure = await converter?.startProblem(for: type) {
                    outages.mark(type, failure)
                } else {
                    outages.clear(type)
                    logger.notice("jobs.converter_starts_again", metadata: ["job.type": "\(type.rawValue)"])
                    wakeUp.signal()
                }
            }
        }
    }

    private func startDueJobs() async {
        await expireIdleJobs()
        await renewLeases()
        recheckOutages()
        // Sharing the store, a type whose converter cannot start here is left to other nodes;
        // alone, its jobs are still claimed, and fail at once with the reason (`AttemptPipeline`).
        let out = sharesStore ? Set(outages.current.keys) : []
        let startable = Set(
            router.routes.filter { !out.contains($0.key) && slots.inUse(by: $0.value.converter.name) < $0.value.slots }.keys
        )
        // A read first: an idle engine wakes several times a second, and a claim is a write
        // transaction, which it takes only for the types that have a job due.
        let dueTypes: Set<JobType>
        do {
            dueTypes = Set(try await store.due(now: clock.now(), types: startable, limit: 64).map(\.spec.type))
        } catch {
            logFailure("jobs.due_failed", error)
            return
        }
        // Type by type, as many as the type's backend has free slots: a backlog on one backend
        // never hides another's jobs.
        for type in dueTypes {
            guard let route = router.route(for: type) else { continue }
            let free = route.slots - slots.inUse(by: route.converter.name)
            guard free > 0 else { continue }
            let claimed: [Job]
            do {
                claimed = try await recorder.claim(types: [type], limit: free, lease: lease(from: clock.now()))
            } catch {
                logFailure("jobs.claim_failed", error)
                continue
            }
            for job in claimed {
                slots.start(job.id, converter: route.converter.name) { [pipeline] in
                    await pipeline.run(job, converter: route.converter)
                } ended: { [wakeUp] in
                    wakeUp.signal()
                }
            }
        }
    }
}
