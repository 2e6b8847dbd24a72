import Foundation
import GatewayCore
import GatewayJobModel
import GatewayLibraryModel
import Logging

/// Durable jobs (DESIGN §1): the facade the API and the CLI talk to. It creates jobs, takes
/// client events (upload, submit, cancel) and answers queries; `run()` works the queue.
///
/// Following a job: `JobIntake` checks and creates it → `JobScheduler` starts it in a free slot
/// → `AttemptPipeline` converts, inspects and files it. Every status change on the way goes
/// through `JobRecorder`, which applies the state machine and carries out its actions.
public final class JobEngine: Sendable {
    public struct Configuration: Sendable {
        /// Deadline per job type when the job does not set one.
        public var defaultTimeout: [JobType: Duration]
        public var maxAttempts: Int
        public var backoff: BackoffPolicy
        /// Longest a free slot waits before looking for due retries again.
        public var idlePoll: Duration
        /// How long a shutdown waits for running attempts before cancelling them.
        public var shutdownGrace: Duration
        /// Time, randomness and sleep for scheduling and backoff (see `JobClock`).
        public var clock: JobClock
        /// How long a file job may wait in CREATED for its upload and submit; past it the job
        /// fails as `upload_expired` (and stops counting against its owner's limit). Its own
        /// timeout starts at the submit.
        public var uploadWindow: Duration
        /// How long a running job's lease lasts unless renewed (every third of it): how soon
        /// another engine sharing the store resumes the jobs of one that died.
        public var lease: Duration
        /// Whether other engines share the store (PostgreSQL). An engine alone on its store
        /// resumes every interrupted job at start; one that shares it resumes only jobs whose
        /// lease lapsed, since the others may be running theirs.
        public var sharesStore: Bool
        /// This engine's name in the leases it takes.
        public var node: String
        /// How often a converter that cannot start here is checked again (`ConverterOutages`).
        public var converterRecheck: Duration

        public init(
            defaultTimeout: [JobType: Duration] = [:],
            maxAttempts: Int = 3,
            backoff: BackoffPolicy = BackoffPolicy(),
            idlePoll: Duration = .milliseconds(250),
            shutdownGrace: Duration = .seconds(30),
            clock: JobClock = .system,
            uploadWindow: Duration = .seconds(20 * 60),
            lease: Duration = .seconds(15),
            sharesStore: Bool = false,
            node: String = UUID().uuidString.lowercased(),
            converterRecheck: Duration = .seconds(30)
        ) {
            self.defaultTimeout = defaultTimeout
            self.maxAttempts = maxAttempts
            self.backoff = backoff
            self.idlePoll = idlePoll
            self.shutdownGrace = shutdownGrace
            self.clock = clock
            self.uploadWindow = uploadWindow
            self.lease = lease
            self.sharesStore = sharesStore
            self.node = node
            self.converterRecheck = converterRecheck
        }

        public func timeout(for spec: JobSpec) -> Duration {
            if let seconds = spec.timeoutSeconds { return .milliseconds(Int64(seconds * 1000)) }
            let own = defaultTimeout[spec.type] ?? .seconds(120)
            // Several inputs are converted one after the other: each gets the time it would get
            // alone, up to the hour a client may ask for.
            guard let inputs = spec.inputs else { return own }
            return min(inputs.reduce(own) { $0 + (defaultTimeout[$1.type] ?? .seconds(120)) }, .seconds(3600))
        }
    }

    public let configuration: Configuration
    /// Where inputs wait and attempts work.
    public let staging: any InputStaging
    /// Which converter takes each job type.
    public let router: ConverterRouter
    /// Runs jobs' PDF operations; nil where none are configured.
    public let tools: (any PDFOperator)?
    /// The job types this node cannot run now, because their converter cannot start here.
    public let outages: ConverterOutages
    let store: any JobStore
    private let cache: JobCache
    private let observers = JobObservers()
    private let recorder: JobRecorder
    private let scheduler: JobScheduler

    public init(
        configuration: Configuration,
        store: any JobStore,
        staging: any InputStaging,
        router: ConverterRouter,
        inspector: any PDFInspector,
        filer: any DocumentFiler,
        tools: (any PDFOperator)? = nil,
        logger: Logger = Logger(label: "pdfgate.jobs")
    ) {
        self.configuration = configuration
        self.store = store
        self.staging = staging
        self.router = router
        self.tools = tools
        outages = ConverterOutages(recheckInterval: configuration.converterRecheck)
        cache = JobCache(limit: configuration.sharesStore ? 0 : 20_000)
        let slots = SlotLedger()
        let wakeUp = WakeUp()
        recorder = JobRecorder(
            store: store,
            cache: cache,
            observers: observers,
            slots: slots,
            wakeUp: wakeUp,
            router: router,
            staging: staging,
            filer: filer,
            backoff: configuration.backoff,
            clock: configuration.clock
        )
        scheduler = JobScheduler(
            recorder: recorder,
            pipeline: AttemptPipeline(recorder: recorder, inspector: inspector, tools: tools, outages: outages, logger: logger),
            outages: outages,
            configuration: configuration,
            logger: logger
        )
    }

    // MARK: - Client events

    /// Creates a job as given: URL jobs are queued at once, file jobs wait for their input.
    /// `JobIntake` checks the request and the owner's limits first; with `activeLimit` the store
    /// refuses the insert, in the same transaction, when the owner already has that many
    /// unfinished jobs.
    /// `secrets` wait beside the job's input until it ends (see `JobSecrets`).
    public func create(owner: String, spec: JobSpec, activeLimit: Int? = nil, secrets: JobSecrets = JobSecrets()) async throws -> Job {
        let now = configuration.clock.now()
        let timeout = configuration.timeout(for: spec).inSeconds
        let maxAttempts = configuration.maxAttempts
        let state =
            !spec.needsUpload
            ? JobStateMachine(needsUpload: false, deadline: now.addingTimeInterval(timeout), maxAttempts: maxAttempts)
            : JobStateMachine(
                uploadBy: now.addingTimeInterval(configuration.uploadWindow.inSeconds),
                thenTimeout: timeout,
                maxAttempts: maxAttempts
            )
        let job = Job(owner: owner, spec: spec, state: state, createdAt: now, updatedAt: now)
        // Only a file job receives an input, and only a job with secrets keeps them there; a URL
        // job's attempts make their own directory.
        let needsInput = !job.state.inputReady || !secrets.isEmpty
        if needsInput { try staging.prepare(jobID: job.id) }
        do {
            if !secrets.isEmpty {
                try staging.publishSecrets(secrets, jobID: job.id)
                try await staging.share(jobID: job.id)
            }
            try await store.insert(job, activeLimit: activeLimit)
        } catch {
            if needsInput { staging.remove(jobID: job.id) }
            throw error
        }
        cache.remember(job)
        if job.state.status == .queued { scheduler.wakeUp.signal() }
        return job
    }

    /// Makes `file` the job's input (moved, or copied when `copying`) and records it: once per
    /// job, whichever process and request tries.
    @discardableResult
    public func receiveInput(_ file: String, for job: Job, copying: Bool = false) async throws -> Job {
        try staging.publishInput(file, for: job, part: nil, copying: copying)
        try await shareInputs(of: job)
        return try await recorder.apply(.uploaded, to: job.id)
    }

    /// Makes `files` the inputs of a job with several (`JobSpec.inputs`): the n-th file is its
    /// n-th file input. All came with the create, so they are recorded as one upload.
    @discardableResult
    public func receiveInputs(_ files: [(path: String, copying: Bool)], for job: Job) async throws -> Job {
        let parts = (job.spec.inputs ?? []).enumerated().compactMap { $0.element.filename == nil ? nil : $0.offset }
        guard parts.count == files.count else {
            throw StagingError(.storage, "the job has \(parts.count) file inputs but \(files.count) files came")
        }
        for (part, file) in zip(parts, files) { try staging.publishInput(file.path, for: job, part: part, copying: file.copying) }
        try await shareInputs(of: job)
        return try await recorder.apply(.uploaded, to: job.id)
    }

    /// Makes the job's published inputs reachable from every node before its row says they
    /// arrived. When they cannot be shared, this node's copy goes too, so the upload can be
    /// tried again (here or on another node).
    private func shareInputs(of job: Job) async throws {
        do {
            try await staging.share(jobID: job.id)
        } catch {
            staging.remove(jobID: job.id)
            throw error
        }
    }

    /// The client asks to start (after the upload).
    @discardableResult
    public func submit(_ id: UUID) async throws -> Job { try await recorder.apply(.submitted, to: id) }

    /// Recorded even when the asking task is cancelled meanwhile (a client that hangs up right
    /// after asking): a cancel, once asked, is not lost halfway.
    @discardableResult
    public func cancel(_ id: UUID) async throws -> Job {
        let recorder = recorder
        return try await shielded { try await recorder.apply(.cancelRequested, to: id) }
    }

    // MARK: - Queries

    public func job(_ id: UUID) async throws -> Job? {
        if let cached = cache[id] { return cached }
        guard let job = try await store.job(id: id) else { return nil }
        cache.rememberIfAbsent(job)
        return job
    }

    /// Those of `ids` that can be read now, as they are, in order: what a caller cleaning up
    /// after several jobs looks at (one that cannot be read is left out).
    public func current(_ ids: [UUID]) async -> [Job] {
        let missing = ids.filter { cache[$0] == nil }
        let stored = missing.isEmpty ? [] : (try? await store.jobs(ids: missing)) ?? []
        let byID = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.compactMap { cache[$0] ?? byID[$0] }
    }

    /// The owner's jobs, newest first.
    public func jobs(
        owner: String,
        status: JobStatus?,
        type: JobType?,
        limit: Int,
        cursor: String?
    ) async throws -> (jobs: [Job], nextCursor: String?) {
        try await store.list(owner: owner, status: status, type: type, limit: limit, cursor: cursor)
    }

    /// Jobs per status across owners.
    public func jobCounts() async throws -> [JobStatus: Int] { try await store.statusCounts() }

    /// Queued jobs per type, all owners.
    public func queuedCounts() async throws -> [JobType: Int] { try await store.queuedCounts() }

    /// Jobs this engine resumed for engines that died (their leases lapsed), since it started.
    public var leaseTakeovers: Int { scheduler.takeovers.load(ordering: .relaxed) }

    /// How many of the owner's jobs are not finished.
    public func activeJobCount(owner: String) async throws -> Int { try await store.activeCount(owner: owner) }

    // MARK: - Observing

    /// Calls `listener` with every published change of job `id` until the token is removed.
    public func observe(_ id: UUID, _ listener: @escaping @Sendable (Job) -> Void) -> UUID { observers.observe(id, listener) }

    /// Calls `listener` with every published change of any job, until `stopObserving(token:)`.
    public func observeAll(_ listener: @escaping @Sendable (Job) -> Void) -> UUID { observers.observeAll(listener) }

    public func stopObserving(token: UUID) { observers.stopAll(token: token) }

    public func stopObserving(_ id: UUID, token: UUID) { observers.stop(id, token: token) }

    /// Job `id` once it has ended (succeeded, failed or cancelled), as this engine publishes it,
    /// or as it relays another node's changes on a shared store: awaited, never polled. Nil for
    /// a job that does not exist; throws `CancellationError` when the waiting task is cancelled.
    public func ended(_ id: UUID) async throws -> Job? {
        let (changes, continuation) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .bufferingNewest(16))
        // Watch before reading the snapshot, so no change falls between the two.
        let token = observe(id) { continuation.yield($0) }
        defer {
            stopObserving(id, token: token)
            continuation.finish()
        }
        guard let current = try await job(id) else { return nil }
        if current.state.status.isTerminal { return current }
        return try await withTaskCancellationHandler {
            for await changed in changes where changed.state.status.isTerminal { return changed }
            throw CancellationError()
        } onCancel: {
            continuation.finish()
        }
    }

    // MARK: - Running

    /// Resumes unfinished jobs, then starts due jobs as slots free up, until the task is cancelled.
    /// On cancellation it stops taking jobs and gives running ones `shutdownGrace` to finish.
    public func run() async {
        guard configuration.sharesStore else { return await scheduler.run() }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.watchOtherEngines() }
            await scheduler.run()
            group.cancelAll()
        }
    }

    /// On a shared store, other engines change the jobs this one's event streams follow: every
    /// `idlePoll` the watched jobs are read again, and a newer revision is passed on, so a
    /// stream on this node follows a job running on another, in order, within one poll.
    private func watchOtherEngines() async {
        var published: [UUID: Int] = [:]
        while !Task.isCancelled {
            try? await Task.sleep(for: configuration.idlePoll)
            let ids = observers.watchedIDs()
            let watched = Set(ids)
            published = published.filter { watched.contains($0.key) }
            guard !ids.isEmpty else { continue }
            // One read for every watched job; a failed read (the database restarting) is
            // simply tried again at the next poll.
            let jobs = (try? await store.jobs(ids: ids)) ?? []
            for job in jobs where job.revision > published[job.id, default: 0] {
                published[job.id] = job.revision
                observers.publishToWatchers(job)
            }
        }
    }
}
