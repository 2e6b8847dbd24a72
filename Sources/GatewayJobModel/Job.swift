import Foundation
import GatewayCore
import GatewayLibraryModel

/// What a client asked for when it created a job; fixed for the job's life.
public struct JobSpec: Sendable, Equatable, Codable {
    public var type: JobType
    /// For `URL_TO_PDF`.
    public var url: String?
    /// For file jobs: the uploaded file's name, whose extension picks the importer.
    public var originalFilename: String?
    /// Folder path or id to file the PDF into; nil for the root.
    public var folder: String?
    /// Document name; nil to derive it from the file name or the URL.
    public var name: String?
    public var onConflict: ConflictPolicy
    public var options: ConversionOptions
    public var callbackURL: String?
    /// Overrides the per-type default deadline.
    public var timeoutSeconds: Double?
    /// `PDF_TO_PDF` from the library: the owner's documents, in order (merged when several).
    public var documents: [UUID]?
    /// Applied in order to the PDF the job makes, whatever its type.
    public var operations: [PDFOperation]?
    /// Write the result over the one input document, which keeps its id, instead of filing a new one.
    public var replaceOriginal: Bool?
    /// Bytes the job started from (its library documents), so an answer can show what an
    /// `optimize` saved.
    public var inputSize: Int64?
    /// `PDF_TO_PDF` from several files and pages: each converted by its own backend, then
    /// merged in this order.
    public var inputs: [JobInput]?
    /// `SCREENSHOT`: what to capture.
    public var screenshot: ScreenshotOptions?
    /// The `Gotenberg-Trace` of the Gotenberg request that made the job, shown with it.
    public var trace: String?
    /// Made by Gotenberg's routes, so run as Gotenberg runs where the two differ (`/v1` keeps
    /// its strict, named refusals): page ranges past the end of the document keep the pages
    /// that exist (LibreOffice's `nativePageRanges`, a split's or a rotation's pages), as
    /// LibreOffice and pdfcpu do there; `waitForExpression` must answer true or false.
    public var gotenbergSemantics: Bool?

    public init(
        type: JobType,
        url: String? = nil,
        originalFilename: String? = nil,
        folder: String? = nil,
        name: String? = nil,
        onConflict: ConflictPolicy = .rename,
        options: ConversionOptions = ConversionOptions(),
        callbackURL: String? = nil,
        timeoutSeconds: Double? = nil,
        documents: [UUID]? = nil,
        operations: [PDFOperation]? = nil,
        replaceOriginal: Bool? = nil,
        inputs: [JobInput]? = nil
    ) {
        self.type = type
        self.url = url
        self.originalFilename = originalFilename
        self.folder = folder
        self.name = name
        self.onConflict = onConflict
        self.options = options
        self.callbackURL = callbackURL
        self.timeoutSeconds = timeoutSeconds
        self.documents = documents
        self.operations = operations
        self.replaceOriginal = replaceOriginal
        self.inputs = inputs
    }

    enum CodingKeys: String, CodingKey {
        case type, url
        case originalFilename = "original_filename"
        case folder, name
        case onConflict = "on_conflict"
        case options
        case callbackURL = "callback_url"
        case timeoutSeconds = "timeout_seconds"
        case documents, operations
        case replaceOriginal = "replace_original"
        case inputSize = "input_size"
        case inputs, screenshot, trace
        case gotenbergSemantics = "gotenberg_semantics"
    }

    /// Whether the job waits for an uploaded file: every type but URLs and library documents,
    /// and of several inputs those with a file among them.
    public var needsUpload: Bool {
        if let inputs { return inputs.contains { $0.filename != nil } }
        if type == .screenshot { return url == nil }
        return type != .urlToPDF && (documents ?? []).isEmpty
    }

    /// The names of the files that come with the job, in the order of its inputs.
    public var inputFilenames: [String] {
        guard let inputs else { return originalFilename.map { [$0] } ?? [] }
        return inputs.compactMap(\.filename)
    }

    /// The document name to use when the client gave none: the file's name, else the URL's host
    /// and path; of several inputs, the first one's, marked as merged.
    public var defaultDocumentName: String {
        if let name, !name.isEmpty { return name }
        return LibraryNames.documentName(derivedFrom: derivedDocumentName)
    }

    private var derivedDocumentName: String? {
        // A scan's pages make one document, named after its first page's file.
        if let first = inputs?.first { return first.documentName + (type == .scanToPDF ? "" : " (merged)") }
        if let originalFilename { return (originalFilename as NSString).deletingPathExtension }
        if let url, let components = URLComponents(string: url) {
            let path = components.path.split(separator: "/").last.map(String.init) ?? ""
            return [components.host ?? "page", path].filter { !$0.isEmpty }.joined(separator: " ")
        }
        return nil
    }
}

extension ConflictPolicy: Codable {}

/// A conversion request and where it stands: the unit the store persists and the runner drives.
public struct Job: Sendable, Equatable {
    public var id: UUID
    public var owner: String
    public var spec: JobSpec
    public var state: JobStateMachine
    public var createdAt: Date
    public var updatedAt: Date
    /// Bumped on every published change: the `id:` of server-sent events.
    public var revision: Int
    /// The engine running the job holds it while PROCESSING; nil otherwise.
    public var lease: JobLease?

    public init(
        id: UUID = UUID(),
        owner: String,
        spec: JobSpec,
        state: JobStateMachine,
        createdAt: Date,
        updatedAt: Date,
        revision: Int = 1,
        lease: JobLease? = nil
    ) {
        self.id = id
        self.owner = owner
        self.spec = spec
        self.state = state
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.revision = revision
        self.lease = lease
    }
}

extension Job {
    /// What a succeeded job filed, in order: every part of a split, or its one document (its
    /// own, or the original it replaced).
    public var filedDocumentIDs: [UUID] {
        guard let first = state.documentID else { return [] }
        return state.parts > 1 ? (0..<state.parts).map { Job.documentID(for: id, part: $0) } : [first]
    }
}

/// An engine's hold on a job it runs, renewed while the attempt lasts. Once it lapses (the
/// engine's process died), another engine sharing the store resumes the job.
public struct JobLease: Sendable, Equatable {
    /// The engine holding it: an id made at its start.
    public var node: String
    public var expires: Date

    public init(node: String, expires: Date) {
        self.node = node
        self.expires = expires
    }
}

/// Durable jobs (DESIGN §1). Behind a protocol so a PostgreSQL store can replace SQLite for
/// scale-out without touching the engine.
public protocol JobStore: Sendable {
    /// Writes a new job. With `activeLimit`, in the same transaction, refuses it with
    /// `ActiveJobLimitReached` when its owner already has that many unfinished jobs: the limit
    /// holds for concurrent creates, whichever process makes them.
    func insert(_ job: Job, activeLimit: Int?) async throws
    /// The job, whoever owns it; nil when there is none.
    func job(id: UUID) async throws -> Job?
    /// Those of `ids` that exist, in one read.
    func jobs(ids: [UUID]) async throws -> [Job]
    /// Reads, changes and writes one job atomically; returns the stored result. `change` may run
    /// more than once (a store may retry when another writer got there first), so it must only
    /// compute from the job it is given.
    @discardableResult
    func update(id: UUID, _ change: @Sendable (inout Job) throws -> Void) async throws -> Job
    /// Jobs of an owner, newest first, optionally of one status and type.
    func list(owner: String, status: JobStatus?, type: JobType?, limit: Int, cursor: String?) async throws -> (jobs: [Job], nextCursor: String?)
    /// How many of an owner's jobs are not finished: the per-owner concurrency limit counts these.
    func activeCount(owner: String) async throws -> Int
    /// Jobs per status, all owners: what `/metrics` reports.
    func statusCounts() async throws -> [JobStatus: Int]
    /// Queued jobs per type, all owners: the queue an autoscaler watches.
    func queuedCounts() async throws -> [JobType: Int]
    /// Queued jobs of `types` whose retry time has come, oldest first. The engine asks only for
    /// types whose backend has a free slot, so a backlog on one backend never hides another's jobs.
    func due(now: Date, types: Set<JobType>, limit: Int) async throws -> [Job]
    /// Claims up to `limit` of the jobs `due` would answer, in one transaction: each is changed
    /// by `start` and leased with `lease`. A job another engine is claiming at that moment is
    /// skipped, not waited for; a job whose `start` throws is left as it was.
    func claimDue(
        now: Date,
        types: Set<JobType>,
        limit: Int,
        lease: JobLease,
        _ start: @escaping @Sendable (inout Job) throws -> Void
    ) async throws -> [Job]
    /// Extends `lease.node`'s leases on `ids` to `lease.expires`; answers the ids it still held.
    func renewLeases(_ ids: [UUID], lease: JobLease) async throws -> Set<UUID>
    /// PROCESSING jobs whose lease lapsed before `now`: their engine is gone.
    func lapsedLeases(now: Date, limit: Int) async throws -> [Job]
    /// Jobs not in a terminal status, for resuming after a restart.
    func unfinished() async throws -> [Job]
    /// Jobs waiting for their upload (CREATED) or for a slot (QUEUED) whose deadline has passed:
    /// nothing running would notice it for them.
    func expired(now: Date, limit: Int) async throws -> [Job]
}

/// A job store failure that is not the client's doing.
public struct JobStoreError: GatewayError {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// An owner has as many unfinished jobs as it may have.
public struct ActiveJobLimitReached: GatewayError, Equatable {
    public var active: Int
    public var limit: Int

    public init(active: Int, limit: Int) {
        self.active = active
        self.limit = limit
    }

    public var code: String { "too_many_jobs" }
    public var message: String { "\(active) jobs are still unfinished (limit \(limit)); wait for some to finish" }
}
