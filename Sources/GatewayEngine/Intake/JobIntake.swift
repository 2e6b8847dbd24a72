import Foundation
import GatewayJobModel
import GatewayLibraryModel
import GatewayURLSecurity

/// The one way in for a new job, whatever the client: the API's JSON create, its one-shot raw
/// and multipart creates, the mobile protocol's upload, and `pdfgate convert` — and for a PDF
/// imported into the library as it is (`POST /v1/documents`). It holds the rules of a create —
/// what a valid request is, the owner's limits, `Idempotency-Key` — so they hold the same for
/// every entry point; the owner's unfinished-jobs limit is enforced by the store in the
/// transaction that inserts the job.
public final class JobIntake: Sendable {
    public struct Limits: Sendable {
        /// Creations per owner per minute (a token bucket); nil for no limit.
        public var creationsPerMinute: Int?
        /// Unfinished jobs per owner; nil for no limit.
        public var activeJobsPerOwner: Int?

        public init(creationsPerMinute: Int? = nil, activeJobsPerOwner: Int? = nil) {
            self.creationsPerMinute = creationsPerMinute
            self.activeJobsPerOwner = activeJobsPerOwner
        }

        /// The operator's own tool on the operator's own machine: no pacing.
        public static let none = Limits()
    }

    /// An `Idempotency-Key` this request holds (see `holdingKey`), and what it found there.
    public struct HeldKey: Sendable {
        public let key: String
        /// The job the key created before, and the hash of the request that created it.
        let used: (requestHash: String, jobID: UUID)?

        /// Whether the key already created its job: this request is a replay.
        public var isReplay: Bool { used != nil }
    }

    /// A held key and the hash of the request it came with.
    public struct Key: Sendable {
        public var held: HeldKey
        public var requestHash: String

        public init(_ held: HeldKey, requestHash: String) {
            self.held = held
            self.requestHash = requestHash
        }
    }

    /// A file that becomes the new job's input.
    public enum Input: Sendable {
        /// Taken: a request body the caller received into `InputStaging.incomingPath()`.
        case moving(String)
        /// Copied: a file the caller keeps (the CLI's argument).
        case copying(String)
    }

    public let engine: JobEngine
    public let limits: Limits
    /// SSRF rules for page and callback URLs: their form is checked here, the resolved
    /// addresses by whatever fetches.
    public let urlCheck: URLCheck
    let filer: any DocumentFiler
    private let inspector: any PDFInspector
    private let idempotency: (any IdempotencyKeys)?
    let pacing: any CreationPacing

    public init(
        engine: JobEngine,
        filer: any DocumentFiler,
        inspector: any PDFInspector,
        urlCheck: URLCheck,
        limits: Limits,
        idempotency: (any IdempotencyKeys)?,
        pacing: any CreationPacing = CreationRate()
    ) {
        self.engine = engine
        self.filer = filer
        self.inspector = inspector
        self.urlCheck = urlCheck
        self.limits = limits
        self.idempotency = idempotency
        self.pacing = pacing
    }

    /// Where inputs wait: a one-shot create receives its body at `staging.incomingPath()`.
    public var staging: any InputStaging { engine.staging }

    // MARK: - Creating

    /// Runs `body` — receiving a request that carries `key` — while holding the key in the store,
    /// from the first byte: a retry arriving while the first request's body still streams hears
    /// "in progress" at once, on any process, instead of uploading the file a second time. The
    /// hold is refreshed while the body streams, and released if the request fails.
    public func holdingKey<T>(owner: String, key: String?, _ body: (HeldKey?) async throws -> T) async throws -> T {
        guard let key, let idempotency else { return try await body(nil) }
        switch try await idempotency.hold(owner: owner, key: key, now: Date()) {
        case .inProgress:
            throw Self.keyInProgress
        case .used(let requestHash, let jobID):
            return try await body(HeldKey(key: key, used: (requestHash, jobID)))
        case .held:
            // Cancelled by the `defer` below, when `body` returns or throws.
            let refresher = Task {
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(60))
                    try? await idempotency.refresh(owner: owner, key: key, now: Date())
                }
            }
            defer { refresher.cancel() }
            do {
                return try await body(HeldKey(key: key, used: nil))
            } catch {
                try? await idempotency.release(owner: owner, key: key)
                throw error
            }
        }
    }

    /// Creates a job for `spec` (checked here), with its files when they came with the request
    /// (one for a file job, one per file input of a job with `inputs`, in their order; the job
    /// is then submitted at once). `rateTaken` says `admitBeforeBody` already took
    /// this request's creation from the rate. Answers the key's earlier job on a replay.
    /// `secrets` are the passwords that came with the request (see `JobSecrets`).
    public func create(
        _ spec: JobSpec,
        owner: String,
        inputs: [Input] = [],
        key: Key? = nil,
        rateTaken: Bool = false,
        secrets: JobSecrets = JobSecrets()
    ) async throws -> (job: Job, replay: Bool) {
        let asked = spec.withScanOCR()
        try await check(asked, owner: owner, files: inputs.count)
        let (spec, secrets) = try await OperationIntake(filer: filer, staging: staging).settle(
            asked,
            owner: owner,
            secrets: secrets,
            tools: engine.tools
        )
        guard let key, let idempotency else {
            return (try await insert(spec, owner: owner, inputs: inputs, rateTaken: rateTaken, secrets: secrets), false)
        }
        if let used = key.held.used {
            guard used.requestHash == key.requestHash else {
                throw IntakeError(
                    .idempotencyKeyReused,
                    code: "idempotency_key_reused",
                    "this Idempotency-Key was used with a different request; use a new key for a new job"
                )
            }
            guard let job = try await engine.job(used.jobID) else {
                throw IntakeError(.idempotencyJobGone, code: "job_not_found", "the job this key created is gone")
            }
            return (job, true)
        }
        let job = try await insert(spec, owner: owner, inputs: inputs, rateTaken: rateTaken, secrets: secrets)
        try await idempotency.complete(owner: owner, key: key.held.key, requestHash: key.requestHash, jobID: job.id)
        return (job, false)
    }

    private func insert(_ spec: JobSpec, owner: String, inputs: [Input], rateTaken: Bool, secrets: JobSecrets) async throws -> Job {
        if !rateTaken { try await takeCreation(owner: owner) }
        let job: Job
        do {
            job = try await engine.create(owner: owner, spec: spec, activeLimit: limits.activeJobsPerOwner, secrets: secrets)
        } catch let reached as ActiveJobLimitReached {
            throw Self.tooMany(reached)
        }
        guard !inputs.isEmpty else { return job }
        do {
            let files = inputs.map { input in
                switch input {
                case .moving(let path): (path: path, copying: false)
                case .copying(let path): (path: path, copying: true)
                }
            }
            if spec.inputs != nil {
                try await engine.receiveInputs(files, for: job)
            } else {
                try await engine.receiveInput(files[0].path, for: job, copying: files[0].copying)
            }
            return try await engine.submit(job.id)
        } catch {
            _ = try? await engine.cancel(job.id)
            throw error
        }
    }

    /// The mobile protocol's upload: `write` streams the body to the path it is given and
    /// returns the bytes written; the file then becomes the job's input, once.
    public func receiveUpload(for job: Job, _ write: (String) async throws -> Int64) async throws -> (job: Job, bytes: Int64) {
        // Refused before the body streams; the no-replace publish and the state machine hold
        // the rule for a second upload racing this one.
        guard job.state.status == .created, !job.state.inputReady else { throw Self.alreadyUploaded }
        let partial = staging.partialInputPath(for: job)
        do {
            let bytes = try await write(partial)
            return (try await engine.receiveInput(partial, for: job), bytes)
        } catch {
            unlink(partial)
            throw error
        }
    }

    // MARK: - Importing

    /// Where and under what name an imported PDF is filed; known once its request is read.
    public struct Destination: Sendable {
        public var folder: String?
        public var name: String
        public var conflict: ConflictPolicy

        public init(folder: String?, name: String, conflict: ConflictPolicy) {
            self.folder = folder
            self.name = name
            self.conflict = conflict
        }
    }

    /// Files a PDF the owner already has, as it is: no job, but the same rules as one. It counts
    /// against the owner's creation rate (taken before the body streams), its destination is
    /// checked as a job's is, and it is inspected — a file that is not a readable PDF is refused
    /// — then published the way a converter's output is. `receive` writes the request's body to
    /// the staging path it is given and says where the document goes.
    public func importDocument(owner: String, _ receive: (String) async throws -> Destination) async throws -> Document {
        try await receivePDF(
            owner: owner,
            receive,
            check: { try await filer.checkDestination(folder: $0.folder, owner: owner) },
            write: { incoming, destination, info in
                try await filer.fileConverted(
                    incoming,
                    id: UUID(),
                    owner: owner,
                    folder: destination.folder,
                    name: destination.name,
                    conflict: destination.conflict,
                    info: info
                )
            }
        )
    }

    /// Takes in a PDF as an import does (the owner's creation pace, a staging file that goes
    /// when this returns, the inspector's reading, or a PDF kept as it came: `KeptPDF`) and hands it to `write`: an import, or a
    /// `PUT` under the client's own id. `check` refuses what `receive` asked for before the PDF
    /// is inspected.
    public func receivePDF<Received, Written>(
        owner: String,
        _ receive: (String) async throws -> Received,
        check: (Received) async throws -> Void = { _ in },
        write: (_ incoming: String, Received, PDFInfo) async throws -> Written
    ) async throws -> Written {
        try await takeCreation(owner: owner)
        let incoming = staging.incomingPath()
        defer { staging.discardIncoming(incoming) }
        let received = try await receive(incoming)
        try await check(received)
        let info = try await KeptPDF.info(of: incoming, inspector: inspector)
        return try await write(incoming, received, info)
    }

    private static let keyInProgress = IntakeError(
        .idempotencyKeyInProgress,
        code: "idempotency_key_in_progress",
        "the first request with this Idempotency-Key is still being processed; retry shortly"
    )

    private static let alreadyUploaded = StagingError(.inputExists, "this job's file has already been uploaded; an upload URL works once")
}
