import Foundation
import Logging
import Synchronization

/// Starts due jobs as backend slots free up: resumes what a restart interrupted, sweeps
/// staging, fails jobs whose deadline passed while nothing ran for them, and on shutdown gives
/// running attempts a grace period.
final class JobScheduler: Sendable {
    let recorder: JobRecorder
    let pipeline: AttemptPipeline
    let idlePoll: Duration
    let shutdownGrace: Duration
    let logger: Logger
    /// When this engine was made: staging entries last changed well before it belong to a dead process.
    let startedAt = Date()
    private let lastExpirySweep = Mutex<Date?>(nil)
    private let running = Mutex(false)

    init(recorder: JobRecorder, pipeline: AttemptPipeline, idlePoll: Duration, shutdownGrace: Duration, logger: Logger) {
        self.recorder = recorder
        self.pipeline = pipeline
        self.idlePoll = idlePoll
        self.shutdownGrace = shutdownGrace
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
        resumeAfterRestart()
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
            while !Task.isCancelled {
                startDueJobs()
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
        let timer = Task.detached {
            try? await Task.sleep(for: grace)
            for task in tasks { task.cancel() }
        }
        for task in tasks { await task.value }
        timer.cancel()
    }

    private func resumeAfterRestart() {
        do {
            for job in try store.unfinished() where job.state.status != .created {
                _ = try? recorder.apply(.resumedAfterRestart, to: job.id)
            }
        } catch {
            logger.error("jobs.resume_failed", metadata: ["error": "\(error)"])
        }
        // What this process creates meanwhile (a job's directory exists a moment before its row)
        // must stay, and the kernel stamps files from a coarse clock that can read a little
        // behind `Date()`: only entries changed well before this engine was made go.
        let removed = staging.sweep(changedBefore: startedAt.addingTimeInterval(-2)) { id in
            guard let job = try store.job(id: id) else { return false }
            return !job.state.status.isTerminal
        }
        if removed > 0 { logger.notice("jobs.staging_swept", metadata: ["removed": "\(removed)"]) }
    }

    /// Fails jobs whose deadline passed while nothing ran for them: a file job never uploaded, a
    /// job still waiting for a slot behind slower ones. Once a second (an indexed read), so such
    /// a job ends within about a second of its deadline.
    private func expireIdleJobs() {
        let now = clock.now()
        let due = lastExpirySweep.withLock { last in
            guard last.map({ now.timeIntervalSince($0) >= 1 || now < $0 }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        do {
            for job in try store.expired(now: now, limit: 256) { _ = try? recorder.apply(.deadlinePassed, to: job.id) }
        } catch {
            logger.error("jobs.expiry_failed", metadata: ["error": "\(error)"])
        }
    }

    private func startDueJobs() {
        expireIdleJobs()
        let startable = Set(router.routes.filter { slots.inUse(by: $0.value.converter.name) < $0.value.slots }.keys)
        let due: [Job]
        do {
            due = try store.due(now: clock.now(), types: startable, limit: 64)
        } catch {
            logger.error("jobs.due_failed", metadata: ["error": "\(error)"])
            return
        }
        for job in due {
            guard let route = router.route(for: job.spec.type) else { continue }
            guard !slots.isRunning(job.id), slots.inUse(by: route.converter.name) < route.slots else { continue }
            guard let claimed = try? recorder.apply(.started, to: job.id), claimed.state.status == .processing else { continue }
            slots.start(claimed.id, converter: route.converter.name) { [pipeline] in
                await pipeline.run(claimed, converter: route.converter)
            } ended: { [wakeUp] in
                wakeUp.signal()
            }
        }
    }
}
