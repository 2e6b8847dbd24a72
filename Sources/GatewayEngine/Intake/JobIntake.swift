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
    private let filer: any DocumentFiler
    private let inspector: any PDFInspector
    private let idempotency: (any IdempotencyKeys)?
    private let pacing: any CreationPacing

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

    // MARK: - Checks

    /// Everything about `spec` that can be known before storing it. `files` is how many files
    /// the request carries: one for a one-shot create or the CLI with a path, one per file input
    /// of a job with `inputs`.
    public func check(_ spec: JobSpec, owner: String, files: Int = 0) async throws {
        let withInput = files > 0
        guard engine.router.route(for: spec.type) != nil else {
            throw IntakeError(
                .noConverter,
                code: "no_converter",
                "no converter is configured for \(spec.type.rawValue) jobs; route that type to a backend in the configuration"
            )
        }
        try checkConverterStarts(for: spec.type)
        if let inputs = spec.inputs {
            try checkInputs(inputs, of: spec, files: files)
        } else if files > 1 {
            throw IntakeError(.invalid, code: "invalid_argument", "\(files) files came for one input; to merge several, list them in \"inputs\"")
        } else if let documents = spec.documents, !documents.isEmpty, spec.type != .pdfToPDF {
            throw IntakeError(
                .conflictingOptions,
                code: "conflicting_type",
                "a job on library \"documents\" is PDF_TO_PDF (their PDFs are merged), not \(spec.type.rawValue); leave \"type\" out"
            )
        } else if spec.type == .screenshot, let url = spec.url {
            if withInput || spec.originalFilename != nil {
                throw IntakeError(.conflictingOptions, code: "conflicting_type", "a SCREENSHOT of a \"url\" carries no file")
            }
            try checkURL(url)
        } else if spec.type == .urlToPDF {
            if withInput || spec.originalFilename != nil {
                // The type contradicts what came (422, as for a merge's type).
                throw IntakeError(
                    .conflictingOptions,
                    code: "conflicting_type",
                    "a URL_TO_PDF job carries no file: send it as JSON with a \"url\", or leave \"type\" out for the file's own"
                )
            }
            guard let url = spec.url else { throw IntakeError(.invalid, code: "url_required", "a URL_TO_PDF job needs a \"url\"") }
            try checkURL(url)
        } else if let documents = spec.documents, !documents.isEmpty {
            if withInput {
                throw IntakeError(.invalid, code: "invalid_argument", "a job on library \"documents\" carries no file: send it as JSON")
            }
        } else {
            guard let filename = spec.originalFilename, !filename.isEmpty else {
                // A file that came without a name is one whose format nobody can tell (415);
                // a create that names none for a file still to come is missing a field (400).
                throw IntakeError(
                    withInput ? .unsupportedFormat : .invalid,
                    code: "filename_required",
                    "a \(spec.type.rawValue) job needs an \"original_filename\" whose extension says what the file is, e.g. \(spec.type == .scanToPDF ? "page-1.jpg" : "report.docx")"
                )
            }
            if let problem = SourceFormats.problem(with: filename, for: spec.type) {
                throw IntakeError(.unsupportedFormat, code: "unsupported_format", problem)
            }
        }
        if let problem = spec.screenshot?.problem {
            throw IntakeError(.invalid, code: "invalid_screenshot", problem)
        }
        if let timeout = spec.timeoutSeconds, !(timeout > 0 && timeout <= 3600) {
            throw IntakeError(.invalid, code: "invalid_argument", "timeout_seconds must be between 0 and 3600")
        }
        do {
            try spec.options.validate()
            if let inputs = spec.inputs {
                try spec.options.checkApplies(toInputs: inputs)
            } else {
                try spec.options.checkApplies(to: spec.type, originalFilename: spec.originalFilename)
            }
        } catch {
            throw IntakeError(error.kind == .conflicting ? .conflictingOptions : .invalid, code: error.code, error.message)
        }
        if let callback = spec.callbackURL { try checkURL(callback) }
        // A name or folder the library would refuse fails now, not after the conversion.
        if let name = spec.name, !name.isEmpty { _ = try LibraryNames.documentName(name) }
        try await filer.checkDestination(folder: spec.folder, owner: owner)
    }

    /// Alone on its store, a node whose converter for `type` cannot start would only queue the
    /// job to fail it: it refuses it now, with the cause. Sharing the store, another node may run it.
    private func checkConverterStarts(for type: JobType) throws {
        guard !engine.configuration.sharesStore, let failure = engine.outages.failure(for: type) else { return }
        throw IntakeError(.noConverter, code: failure.code, "\(type.rawValue) jobs cannot run on this gateway now: \(failure.message)")
    }

    /// A job with several inputs: a `PDF_TO_PDF` job on nothing else, each input a format its
    /// own backend converts (and has a route to), each URL within the SSRF rules, and every file
    /// it names come with the request.
    private func checkInputs(_ inputs: [JobInput], of spec: JobSpec, files: Int) throws {
        // Contradictions rather than malformed fields (422, like conflicting options): a merge's
        // type and file name are given by its inputs, whatever else the request says.
        guard spec.type == .pdfToPDF || spec.type == .scanToPDF else {
            throw IntakeError(
                .conflictingOptions,
                code: "conflicting_type",
                "a job with \"inputs\" is PDF_TO_PDF (each input is converted, then all are merged) or SCAN_TO_PDF (page images, one page each), not \(spec.type.rawValue); leave \"type\" out for a merge"
            )
        }
        if spec.type == .scanToPDF, let index = inputs.firstIndex(where: { $0.type != .scanToPDF }) {
            throw IntakeError(
                .unsupportedFormat,
                code: "unsupported_format",
                "inputs[\(index)] (\(inputs[index].label)) is no page image, and a SCAN_TO_PDF job takes only page images (\(SourceFormats.image.sorted().joined(separator: ", "))); to combine documents and images, send a PDF_TO_PDF job"
            )
        }
        guard spec.url == nil, spec.originalFilename == nil, spec.documents == nil else {
            throw IntakeError(
                .conflictingOptions,
                code: "conflicting_fields",
                "\"inputs\" lists every file and URL of the job: send no \"url\", \"original_filename\" or \"documents\" beside it"
            )
        }
        guard (1...JobInput.maxCount).contains(inputs.count) else {
            throw IntakeError(.invalid, code: "invalid_argument", "\"inputs\" holds 1 to \(JobInput.maxCount) files and URLs, not \(inputs.count)")
        }
        for (index, input) in inputs.enumerated() {
            guard engine.router.route(for: input.type) != nil else {
                throw IntakeError(
                    .noConverter,
                    code: "no_converter",
                    "inputs[\(index)] (\(input.label)) needs a \(input.type.rawValue) converter, and none is configured; route that type to a backend"
                )
            }
            try checkConverterStarts(for: input.type)
            switch input {
            case .url(let url):
                do {
                    _ = try urlCheck.checkSyntax(url)
                } catch {
                    throw IntakeError(.urlRefused, code: error.code, "inputs[\(index)]: \(error.message)")
                }
            case .file(let name):
                guard !name.isEmpty else {
                    throw IntakeError(
                        .invalid,
                        code: "filename_required",
                        "inputs[\(index)] names no file; give its name, e.g. {\"file\": \"report.docx\"}"
                    )
                }
                if let problem = SourceFormats.problem(with: name, for: input.type) {
                    throw IntakeError(.unsupportedFormat, code: "unsupported_format", "inputs[\(index)]: \(problem)")
                }
            }
        }
        let named = spec.inputFilenames.count
        guard named == files else {
            // A JSON create has no upload URL per file: files come in the multipart create.
            throw IntakeError(
                .invalid,
                code: files == 0 ? "files_required" : "invalid_argument",
                files == 0
                    ? "\(named == 1 ? "an input is a file" : "\(named) inputs are files"): send the job as one multipart/form-data create, each file a 'file' part and each page a 'url' field, in order"
                    : "the inputs name \(named) files but \(files) came"
            )
        }
    }

    private func checkURL(_ url: String) throws(IntakeError) {
        do {
            _ = try urlCheck.checkSyntax(url)
        } catch {
            throw IntakeError(.urlRefused, code: error.code, error.message)
        }
    }

    /// The owner's limits, for a request about to send a body: an owner over them hears 429
    /// before uploading a file. A key that already created its job is a replay, answered with
    /// that job wherever the owner's limits stand. Takes a creation from the rate.
    public func admitBeforeBody(owner: String, key: HeldKey?) async throws {
        if key?.isReplay == true { return }
        try await takeCreation(owner: owner)
        if let limit = limits.activeJobsPerOwner {
            let active = try await engine.activeJobCount(owner: owner)
            if active >= limit { throw Self.tooMany(ActiveJobLimitReached(active: active, limit: limit)) }
        }
    }

    private func takeCreation(owner: String) async throws {
        guard let perMinute = limits.creationsPerMinute, let wait = try await pacing.take(owner: owner, perMinute: perMinute) else { return }
        throw IntakeError(
            .rateLimited(retryAfterSeconds: wait),
            code: "rate_limited",
            "too many jobs created in the last minute (limit \(perMinute)); retry in \(wait) s"
        )
    }

    private static func tooMany(_ reached: ActiveJobLimitReached) -> IntakeError {
        IntakeError(.tooManyJobs, code: reached.code, reached.message)
    }

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
        try await takeCreation(owner: owner)
        let incoming = staging.incomingPath()
        defer { staging.discardIncoming(incoming) }
        let destination = try await receive(incoming)
        try await filer.checkDestination(folder: destination.folder, owner: owner)
        let info = try await inspector.inspect(path: incoming)
        return try await filer.fileConverted(
            incoming,
            id: UUID(),
            owner: owner,
            folder: destination.folder,
            name: destination.name,
            conflict: destination.conflict,
            info: info
        )
    }

    private static let keyInProgress = IntakeError(
        .idempotencyKeyInProgress,
        code: "idempotency_key_in_progress",
        "the first request with this Idempotency-Key is still being processed; retry shortly"
    )

    private static let alreadyUploaded = StagingError(.inputExists, "this job's file has already been uploaded; an upload URL works once")
}
