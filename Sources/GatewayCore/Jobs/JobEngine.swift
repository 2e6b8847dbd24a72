import Foundation
import Logging
import Synchronization

/// Creates jobs, takes client events (upload, submit, cancel) and runs queued jobs through
/// convert → inspect → file with a bounded number of slots per backend (DESIGN §1).
///
/// Every status change goes through `JobStateMachine`; the engine only carries out the actions
/// it returns. Call `run()` from a service: it resumes unfinished jobs, then works until cancelled.
public final class JobEngine: Sendable {
    public struct Configuration: Sendable {
        /// Deadline per job type when the job does not set one.
        public var defaultTimeout: [JobType: Duration]
        public var maxAttempts: Int
        public var backoff: BackoffPolicy
        /// `<store>/.pdfgate/staging`: one directory per job.
        public var stagingDirectory: String
        /// Longest a free slot waits before looking for due retries again.
        public var idlePoll: Duration
        /// How long a shutdown waits for running attempts before cancelling them.
        public var shutdownGrace: Duration
        /// SSRF rules for URL jobs; the form is checked at creation, the resolved addresses by
        /// the backend that fetches.
        public var urlCheck: URLCheck
        /// Time and randomness for scheduling and backoff (see `JobClock`).
        public var clock: JobClock
        /// How long a file job may wait in CREATED for its upload and submit; past it the job
        /// fails as `upload_expired` (and stops counting against its owner's limit). Its own
        /// timeout starts at the submit.
        public var uploadWindow: Duration

        public init(
            stagingDirectory: String,
            defaultTimeout: [JobType: Duration] = [:],
            maxAttempts: Int = 3,
            backoff: BackoffPolicy = BackoffPolicy(),
            idlePoll: Duration = .milliseconds(250),
            shutdownGrace: Duration = .seconds(30),
            urlCheck: URLCheck = URLCheck(),
            clock: JobClock = .system,
            uploadWindow: Duration = .seconds(20 * 60)
        ) {
            self.stagingDirectory = stagingDirectory
            self.defaultTimeout = defaultTimeout
            self.maxAttempts = maxAttempts
            self.backoff = backoff
            self.idlePoll = idlePoll
            self.shutdownGrace = shutdownGrace
            self.urlCheck = urlCheck
            self.clock = clock
            self.uploadWindow = uploadWindow
        }

        public func timeout(for spec: JobSpec) -> Duration {
            if let seconds = spec.timeoutSeconds { return .milliseconds(Int64(seconds * 1000)) }
            return defaultTimeout[spec.type] ?? .seconds(120)
        }
    }

    public let configuration: Configuration
    let store: any JobStore
    let router: ConverterRouter
    let inspector: any PDFInspector
    let filer: any DocumentFiler
    let logger: Logger
    private let wakeUp: AsyncStream<Void>.Continuation
    private let wakeUps: Mutex<AsyncStream<Void>?>
    /// Jobs running now: their tasks (for cancel) and which backend slot they hold.
    private let running = Mutex<[UUID: Task<Void, Never>]>([:])
    private let listeners = Mutex<[UUID: [UUID: @Sendable (Job) -> Void]]>([:])
    /// Jobs as last written by this engine, so polls (the hot path of the API) skip SQLite and
    /// JSON decoding. Correct because this engine is the only writer of its jobs; a scale-out
    /// store shared by several engines would turn it off.
    private let recent = Mutex<[UUID: Job]>([:])
    private static let recentLimit = 20_000
    /// Listeners to every job's changes (webhooks, metrics).
    private let allJobsListeners = Mutex<[UUID: @Sendable (Job) -> Void]>([:])
    /// When this engine was made: staging entries last changed well before it belong to a dead process.
    private let startedAt = Date()

    public init(
        configuration: Configuration,
        store: any JobStore,
        router: ConverterRouter,
        inspector: any PDFInspector,
        filer: any DocumentFiler,
        logger: Logger = Logger(label: "pdfgate.jobs")
    ) {
        self.configuration = configuration
        self.store = store
        self.router = router
        self.inspector = inspector
        self.filer = filer
        self.logger = logger
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        wakeUp = continuation
        wakeUps = Mutex(stream)
    }

    // MARK: - Client events

    /// Creates a job: URL jobs are queued at once, file jobs wait for `inputReceived`.
    public func create(owner: String, spec: JobSpec, now: Date? = nil) throws -> Job {
        let now = now ?? configuration.clock.now()
        guard router.route(for: spec.type) != nil else {
            throw JobFailure(
                .rejected,
                code: "no_converter",
                "no converter is configured for \(spec.type.rawValue) jobs; route that type to a backend in the configuration"
            )
        }
        if spec.type == .urlToPDF {
            guard let url = spec.url else {
                throw JobFailure(.rejected, code: "url_required", "a URL_TO_PDF job needs a \"url\"")
            }
            _ = try configuration.urlCheck.checkSyntax(url)
        } else if spec.originalFilename?.isEmpty ?? true {
            throw JobFailure(
                .rejected,
                code: "filename_required",
                "a \(spec.type.rawValue) job needs an \"original_filename\" whose extension says what the file is, e.g. report.docx"
            )
        }
        let needsUpload = spec.type != .urlToPDF
        let timeout = configuration.timeout(for: spec).inSeconds
        let state =
            needsUpload
            ? JobStateMachine(
                uploadBy: now.addingTimeInterval(configuration.uploadWindow.inSeconds),
                thenTimeout: timeout,
                maxAttempts: configuration.maxAttempts
            )
            : JobStateMachine(needsUpload: false, deadline: now.addingTimeInterval(timeout), maxAttempts: configuration.maxAttempts)
        let job = Job(
            owner: owner,
            spec: spec,
            state: state,
            createdAt: now,
            updatedAt: now
        )
        try FileManager.default.createDirectory(atPath: inputDirectory(job.id), withIntermediateDirectories: true)
        try store.insert(job)
        recent.withLock { Self.remember(job, in: &$0) }
        if !needsUpload { wakeUp.yield() }
        return job
    }

    /// Where an upload for `job` must be written (then call `inputReceived`).
    public func inputPath(_ job: Job) -> String {
        inputDirectory(job.id) + "/" + Self.safeFileName(job.spec.originalFilename ?? "input")
    }

    /// The upload is complete and in place at `inputPath`.
    @discardableResult
    public func inputReceived(_ id: UUID) throws -> Job { try apply(.uploaded, to: id) }

    /// The client asks to start (after the upload).
    @discardableResult
    public func submit(_ id: UUID) throws -> Job { try apply(.submitted, to: id) }

    @discardableResult
    public func cancel(_ id: UUID) throws -> Job { try apply(.cancelRequested, to: id) }

    public func job(_ id: UUID) throws -> Job? {
        if let cached = recent.withLock({ $0[id] }) { return cached }
        guard let job = try store.job(id: id) else { return nil }
        recent.withLock { recent in
            if recent[id] == nil { Self.remember(job, in: &recent) }
        }
        return job
    }

    private static func remember(_ job: Job, in recent: inout [UUID: Job]) {
        // Crude but bounded: past the limit, start over; misses only cost a database read.
        if recent.count >= recentLimit && recent[job.id] == nil { recent.removeAll(keepingCapacity: true) }
        recent[job.id] = job
    }

    /// The owner's jobs, newest first.
    public func jobs(owner: String, status: JobStatus?, type: JobType?, limit: Int, cursor: String?) throws -> (jobs: [Job], nextCursor: String?) {
        try store.list(owner: owner, status: status, type: type, limit: limit, cursor: cursor)
    }

    /// Jobs per status across owners.
    public func jobCounts() throws -> [JobStatus: Int] { try store.statusCounts() }

    /// How many of the owner's jobs are not finished.
    public func activeJobCount(owner: String) throws -> Int { try store.activeCount(owner: owner) }

    /// Calls `listener` with every published change of job `id` until the returned token is removed.
    public func observe(_ id: UUID, _ listener: @escaping @Sendable (Job) -> Void) -> UUID {
        let token = UUID()
        listeners.withLock { $0[id, default: [:]][token] = listener }
        return token
    }

    /// Calls `listener` with every published change of any job, until `stopObserving(token:)`.
    public func observeAll(_ listener: @escaping @Sendable (Job) -> Void) -> UUID {
        let token = UUID()
        allJobsListeners.withLock { $0[token] = listener }
        return token
    }

    public func stopObserving(token: UUID) {
        _ = allJobsListeners.withLock { $0.removeValue(forKey: token) }
    }

    public func stopObserving(_ id: UUID, token: UUID) {
        listeners.withLock { all in
            all[id]?[token] = nil
            if all[id]?.isEmpty == true { all[id] = nil }
        }
    }

    // MARK: - Running

    /// Resumes unfinished jobs, then starts due jobs as slots free up, until the task is cancelled.
    /// On cancellation it stops taking jobs and gives running ones `shutdownGrace` to finish.
    public func run() async {
        resumeAfterRestart()
        guard
            let stream = wakeUps.withLock({ stream in
                defer { stream = nil }
                return stream
            })
        else { return }
        var iterator = stream.makeAsyncIterator()
        await withTaskGroup(of: Void.self) { group in
            // One timer keeps retries with a `not_before` moving even when nothing wakes us.
            group.addTask { [wakeUp, configuration] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: configuration.idlePoll)
                    wakeUp.yield()
                }
            }
            while !Task.isCancelled {
                startDueJobs()
                _ = await iterator.next()
            }
            group.cancelAll()
        }
        // Let running attempts finish within the grace period; past it they are cancelled and
        // their jobs, still PROCESSING, resume at the next start.
        let tasks = running.withLock { Array($0.values) }
        let grace = configuration.shutdownGrace
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
                _ = try? apply(.resumedAfterRestart, to: job.id)
            }
            sweepStaging()
        } catch {
            logger.error("jobs.resume_failed", metadata: ["error": "\(error)"])
        }
    }

    /// Removes what a killed process left in staging: directories of jobs that are finished or
    /// unknown (a crash between a job's terminal write and its clean-up), and request bodies
    /// (`incoming-…`, `import-…`) whose requests died with that process. Only entries last
    /// changed well before this engine was made: what this process creates meanwhile (a job's
    /// directory exists a moment before its row) must stay, and the kernel stamps files from a
    /// coarse clock that can read a little behind `Date()`.
    private func sweepStaging() {
        let staging = configuration.stagingDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: staging) else { return }
        var removed = 0
        for name in names {
            let path = staging + "/" + name
            let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
            guard let modified, modified < startedAt.addingTimeInterval(-2) else { continue }
            if let id = UUID(uuidString: name) {
                let job: Job?
                do { job = try store.job(id: id) } catch { continue }  // the store cannot say: keep it
                if let job, !job.state.status.isTerminal { continue }  // an unfinished job's input
            }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed += 1 }
        }
        if removed > 0 { logger.notice("jobs.staging_swept", metadata: ["removed": "\(removed)"]) }
    }

    /// Fails jobs whose deadline passed while nothing ran for them: a file job never uploaded, a
    /// job still waiting for a slot behind slower ones. Once a second (an indexed read), so such
    /// a job ends within about a second of its deadline.
    private func expireIdleJobs() {
        let now = configuration.clock.now()
        let due = lastExpirySweep.withLock { last in
            guard last.map({ now.timeIntervalSince($0) >= 1 || now < $0 }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        do {
            for job in try store.expired(now: now, limit: 256) { _ = try? apply(.deadlinePassed, to: job.id) }
        } catch {
            logger.error("jobs.expiry_failed", metadata: ["error": "\(error)"])
        }
    }

    private let lastExpirySweep = Mutex<Date?>(nil)

    private func startDueJobs() {
        expireIdleJobs()
        let startable = Set(router.routes.filter { slotsInUse($0.value.converter.name) < $0.value.slots }.keys)
        let due: [Job]
        do {
            due = try store.due(now: configuration.clock.now(), types: startable, limit: 64)
        } catch {
            logger.error("jobs.due_failed", metadata: ["error": "\(error)"])
            return
        }
        for job in due {
            guard let route = router.route(for: job.spec.type) else { continue }
            let alreadyRunning = running.withLock { $0[job.id] != nil }
            guard !alreadyRunning, slotsInUse(route.converter.name) < route.slots else { continue }
            guard let claimed = try? apply(.started, to: job.id), claimed.state.status == .processing else { continue }
            // Registered before the task starts, so the task's own removal cannot come first.
            running.withLock { running in
                running[claimed.id] = Task { [self] in
                    await process(claimed, route: route)
                    _ = self.running.withLock { $0.removeValue(forKey: claimed.id) }
                    wakeUp.yield()
                }
            }
            converterOfRunning.withLock { $0[claimed.id] = route.converter.name }
        }
    }

    private let converterOfRunning = Mutex<[UUID: String]>([:])

    private func slotsInUse(_ converter: String) -> Int {
        let ids = running.withLock { Set($0.keys) }
        return converterOfRunning.withLock { map in
            map = map.filter { ids.contains($0.key) }
            return map.values.filter { $0 == converter }.count
        }
    }

    /// One attempt: convert → inspect → file. Failures become state-machine events.
    private func process(_ job: Job, route: ConverterRouter.Route) async {
        let attemptDirectory = configuration.stagingDirectory + "/\(job.id.lowercased)/attempt-\(job.state.attempts)"
        let output = attemptDirectory + "/output.pdf"
        let remaining = job.state.deadline.timeIntervalSince(configuration.clock.now())
        let deadline = ContinuousClock.now + .milliseconds(Int64(max(remaining, 0) * 1000))
        var metadata: Logger.Metadata = ["job.id": "\(job.id.lowercased)", "converter": "\(route.converter.name)"]
        do {
            try? FileManager.default.removeItem(atPath: attemptDirectory)
            try FileManager.default.createDirectory(atPath: attemptDirectory, withIntermediateDirectories: true)
            let source: ConversionSource =
                if let url = job.spec.url { .url(url) } else { .file(path: inputPath(job), originalFilename: job.spec.originalFilename ?? "input") }
            let request = ConversionRequest(
                jobID: job.id,
                type: job.spec.type,
                source: source,
                options: job.spec.options,
                workDirectory: attemptDirectory,
                outputPath: output,
                deadline: deadline,
                remoteID: job.state.remoteID
            )
            // The converter should honour the deadline itself; this makes sure a stuck one cannot hold the job.
            try await Self.withDeadline(deadline) {
                try await route.converter.convert(request) { [self] event in
                    switch event {
                    case .entered(let phase): _ = try? apply(.entered(phase), to: job.id)
                    case .remoteJobCreated(let id): _ = try? apply(.remoteCreated(id), to: job.id)
                    }
                }
            }
            try Task.checkCancellation()
            try advance(.entered(.inspecting), job.id)
            let info = try await inspector.inspect(path: output)
            try advance(.entered(.filing), job.id)
            // Filing and recording it run on a blocking thread: they fsync, and a task
            // cancelled now (a shutdown's grace running out) must not stop GRDB's writes halfway.
            // A client's cancel is still seen: the state machine then refuses `.filed`.
            let filer = filer
            let document = try await runBlocking { [job] in
                Result {
                    try filer.fileConverted(
                        output,
                        id: Self.documentID(for: job.id),
                        owner: job.owner,
                        folder: job.spec.folder,
                        name: job.spec.defaultDocumentName,
                        conflict: job.spec.onConflict,
                        info: info
                    )
                }
            }.get()
            metadata["document.id"] = "\(document.id.uuidString.lowercased())"
            let recorded = await runBlocking { [self] in Result { try apply(.filed(document.id), to: job.id) } }
            if case .failure(let error) = recorded {
                // A cancel that landed during filing makes the state machine refuse `.filed`:
                // the document must not outlive its job. (A retry files it again.)
                _ = await runBlocking { try? filer.discardConverted(id: document.id, owner: job.owner) }
                throw error
            }
            logger.info("jobs.succeeded", metadata: metadata)
        } catch is CancellationError {
            // Cancelled by the client (the state machine already says so) or by shutdown: in the
            // latter case the job stays PROCESSING and resumes at the next start.
            logger.info("jobs.attempt_stopped", metadata: metadata)
        } catch {
            let failure = Self.classify(error)
            metadata["error.code"] = "\(failure.code)"
            logger.notice("jobs.attempt_failed", metadata: metadata)
            _ = try? apply(.failed(failure), to: job.id)
        }
    }

    // MARK: - State changes

    /// Applies a step of a running attempt; stops the attempt when the job is no longer
    /// processing (cancelled meanwhile, or the deadline passed).
    private func advance(_ event: JobStateMachine.Event, _ id: UUID) throws {
        if try apply(event, to: id).state.status != .processing { throw CancellationError() }
    }

    /// Runs `body`, cancelling it and throwing a timed-out failure at `deadline`.
    static func withDeadline(_ deadline: ContinuousClock.Instant, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            defer { group.cancelAll() }
            if try await group.next() == false {
                throw JobFailure(.timedOut, code: "timed_out", "the converter did not finish before the job's deadline")
            }
        }
    }

    /// Applies an event through the state machine, persists it, and carries out its actions.
    @discardableResult
    func apply(_ event: JobStateMachine.Event, to id: UUID) throws -> Job {
        let result = Mutex<[JobStateMachine.Action]>([])
        let backoff = configuration.backoff
        let clock = configuration.clock
        let job: Job
        do {
            job = try store.update(id: id) { job in
                var random = clock.makeRandom()
                let now = clock.now()
                let actions = try job.state.handle(event, now: now, backoff: backoff, random: &random)
                if actions.contains(.publish) {
                    job.revision += 1
                    job.updatedAt = now
                }
                result.withLock { $0 = actions }
                // Inside the write transaction, so concurrent updates reach the cache in order.
                let updated = job
                self.recent.withLock { Self.remember(updated, in: &$0) }
            }
        } catch {
            // The write may not have committed: forget what the closure cached.
            _ = recent.withLock { $0.removeValue(forKey: id) }
            throw error
        }
        for action in result.withLock({ $0 }) {
            switch action {
            case .enqueue: wakeUp.yield()
            case .stopWork: running.withLock { $0[id] }?.cancel()
            case .cancelRemote(let remoteID):
                if let converter = router.route(for: job.spec.type)?.converter {
                    Task { await converter.cancelRemoteJob(remoteID) }  // a new task: not the cancelled job's
                }
            case .cleanUpStaging: try? FileManager.default.removeItem(atPath: configuration.stagingDirectory + "/" + id.lowercased)
            case .discardDocument:
                // On a blocking thread: this often runs on the job's own task, which a cancel
                // has just cancelled, and GRDB stops a cancelled task's writes halfway.
                let filer = filer
                Task { _ = await runBlocking { try? filer.discardConverted(id: Self.documentID(for: id), owner: job.owner) } }
            case .publish:
                let observers = listeners.withLock { Array(($0[id] ?? [:]).values) } + allJobsListeners.withLock { Array($0.values) }
                for observer in observers { observer(job) }
            }
        }
        return job
    }

    // MARK: - Helpers

    private func inputDirectory(_ id: UUID) -> String { configuration.stagingDirectory + "/\(id.lowercased)/input" }

    /// The id the job's document gets: derived from the job id so filing twice finds the first.
    public static func documentID(for jobID: UUID) -> UUID {
        var bytes = jobID.uuid
        // Flip bits outside the version (byte 6) and variant (byte 8) fields, so it stays a v4 UUID.
        bytes.0 ^= 0x5A
        bytes.15 ^= 0xA5
        return UUID(uuid: bytes)
    }

    /// The job that filed document `id`, if a job did: `documentID(for:)` backwards (flipping the
    /// same bits again restores them).
    public static func jobID(forDocument id: UUID) -> UUID { documentID(for: id) }

    /// Maps anything a pipeline step threw to a classified failure.
    static func classify(_ error: any Error) -> JobFailure {
        switch error {
        case let failure as JobFailure: return failure
        case let inspection as InspectionError:
            let transient: Set<InspectionError.Kind> = [.inspectorUnavailable]
            return JobFailure(
                transient.contains(inspection.kind) ? .transient : .rejected,
                code: "invalid_output",
                "the converter's output is not a usable PDF: \(inspection.message)"
            )
        case let library as LibraryError:
            return JobFailure(library.kind == .storage ? .transient : .rejected, code: library.code, library.message)
        case let gateway as any GatewayError:
            return JobFailure(.transient, code: gateway.code, gateway.message)
        default:
            return JobFailure(.transient, code: "internal_error", "unexpected failure: \(error)")
        }
    }

    static func safeFileName(_ name: String) -> String {
        let base = (name as NSString).lastPathComponent.replacingOccurrences(of: "\0", with: "")
        return base.isEmpty || base.hasPrefix(".") ? "input" + base : base
    }
}
