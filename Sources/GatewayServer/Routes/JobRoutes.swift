import Crypto
import Foundation
import GatewayCore
import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
    static let lastEventID = Self("Last-Event-ID")!
}

/// DESIGN §3.1: the mobile client's job protocol, plus the one-shot create, listing and cancel.
extension GatewayAPI {
    func registerJobRoutes(_ routes: inout RouteTable, api group: RouterGroup<GatewayRequestContext>) {
        routes.add(group, .post, "/v1/jobs") { request, context in try await self.createJob(request, context) }
        routes.add(group, .get, "/v1/jobs") { request, context in try self.listJobs(request, context) }
        routes.add(group, .get, "/v1/jobs/{id}") { request, context in try self.getJob(request, context) }
        routes.add(group, .delete, "/v1/jobs/{id}") { request, context in try self.cancelJob(request, context) }
        routes.add(group, .post, "/v1/jobs/{id}/submit") { request, context in try self.submitJob(request, context) }
        routes.add(group, .get, "/v1/jobs/{id}/events") { request, context in try self.jobEvents(request, context) }
    }

    // MARK: - Create

    func createJob(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let owner = try context.requireOwner()
        let key = try Self.idempotencyKey(request)
        // Held from the first byte on: a retry while the first request's body is still streaming
        // hears 409 at once instead of uploading the file a second time.
        if let key, !idempotencyKeysInFlight.begin([owner, key]) { throw Self.idempotencyKeyInProgress }
        defer { if let key { idempotencyKeysInFlight.end([owner, key]) } }
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        let created: (job: Job, replay: Bool)
        if contentType.hasPrefix("multipart/form-data") {
            created = try await createOneShotMultipart(request, owner: owner, key: key, contentType: contentType)
        } else if contentType.isEmpty || contentType.hasPrefix("application/json") || contentType.hasPrefix("application/x-www-form-urlencoded") {
            // curl -d sends form-urlencoded by default; the body is still our JSON.
            created = try await createFromJSON(request, context, owner: owner, key: key)
        } else {
            created = try await createOneShotRaw(request, owner: owner, key: key)
        }
        return try jsonResponse(jobJSON(created.job, base: baseURL(for: request)), status: created.replay ? .ok : .created)
    }

    private func createFromJSON(_ request: Request, _ context: GatewayRequestContext, owner: String, key: String?) async throws -> (Job, Bool) {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        let data = Data(buffer.readableBytesView)
        let body: JobCreateRequest
        do {
            body = try JSONDecoder().decode(JobCreateRequest.self, from: data)
        } catch {
            throw APIError(.badRequest, "invalid_json", "the body is not a job request: \(Self.describe(error))")
        }
        let spec = try body.spec(defaultTypeFromFilename: true)
        try checkCallback(spec)
        try checkFolder(spec, owner: owner)
        // The hash is of the parsed request, so key order and spacing do not make a body "different".
        let canonical = JSONEncoder()
        canonical.outputFormatting = .sortedKeys
        // Limits are checked inside: a replay answers its job even to an owner at its limit.
        return try await idempotent(key, owner: owner, requestHash: Self.sha256(try canonical.encode(spec))) {
            try self.createWithinLimits(owner: owner, spec: spec, takingRateToken: true)
        }
    }

    /// Raw body: the file itself, its name in `Content-Disposition` or `?filename=`, the rest as query parameters.
    private func createOneShotRaw(_ request: Request, owner: String, key: String?) async throws -> (Job, Bool) {
        var fields = request.queryDictionary
        if let disposition = request.headers[.contentDisposition], let filename = ContentDisposition.filename(disposition) {
            fields["original_filename"] = filename
        }
        guard fields["original_filename"] ?? fields["filename"] != nil else {
            throw APIError(
                .badRequest,
                "filename_required",
                "name the file: send Content-Disposition: attachment; filename=\"report.docx\" or add ?filename=report.docx"
            )
        }
        let spec = try JobCreateRequest(fields: fields).spec(defaultTypeFromFilename: true)
        try checkOneShot(spec, owner: owner)
        let receiver = BodyToFile(maxBytes: configuration.maxUploadBytes)
        try receiver.checkDeclaredLength(request)
        // Before the body: an owner over its limits hears 429 now, not after uploading the file.
        try admitBeforeBody(owner: owner, key: key)
        let incoming = library.paths.staging + "/incoming-\(UUID().lowercased)"
        defer { unlink(incoming) }
        let written = try await receiver.write(request.body, to: incoming, hashing: key != nil)
        return try await idempotent(key, owner: owner, requestHash: Self.oneShotHash(fields, fileSHA256: written.sha256)) {
            try await self.createAndStart(spec: spec, owner: owner, input: incoming, bytes: written.bytes)
        }
    }

    /// `multipart/form-data`: a `file` part and text parts named like the JSON fields.
    private func createOneShotMultipart(_ request: Request, owner: String, key: String?, contentType: String) async throws -> (Job, Bool) {
        let receiver = BodyToFile(maxBytes: configuration.maxUploadBytes)
        try receiver.checkDeclaredLength(request)
        // Before the body, as for a raw one-shot: the fields are in the body, the limits are not.
        try admitBeforeBody(owner: owner, key: key)
        let incoming = library.paths.staging + "/incoming-\(UUID().lowercased)"
        defer { unlink(incoming) }
        let form = try await MultipartForm.receive(
            request.body,
            contentType: request.headers[.contentType] ?? contentType,
            filePart: "file",
            to: incoming,
            maxBytes: configuration.maxUploadBytes,
            hashing: key != nil
        )
        guard let file = form.file else {
            throw APIError(.badRequest, "file_required", "the form has no 'file' part; send the document as a part named file")
        }
        var fields = form.fields
        if fields["original_filename"] == nil { fields["original_filename"] = file.filename }
        let spec = try JobCreateRequest(fields: fields).spec(defaultTypeFromFilename: true)
        try checkOneShot(spec, owner: owner)
        return try await idempotent(key, owner: owner, requestHash: Self.oneShotHash(fields, fileSHA256: file.sha256)) {
            try await self.createAndStart(spec: spec, owner: owner, input: incoming, bytes: file.bytes)
        }
    }

    private func checkOneShot(_ spec: JobSpec, owner: String) throws {
        if spec.type == .urlToPDF {
            throw APIError(.badRequest, "invalid_type", "a URL_TO_PDF job carries no file: send it as JSON with a \"url\"")
        }
        if spec.originalFilename?.isEmpty ?? true {
            throw APIError(.badRequest, "filename_required", "the file needs a name whose extension says what it is, e.g. report.docx")
        }
        try checkCallback(spec)
        try checkFolder(spec, owner: owner)
    }

    /// Create, stage the received file as the job's input, submit: one request does all three.
    /// The rate token was taken before the body was read; the unfinished-jobs count is taken
    /// again now, atomically with the create.
    private func createAndStart(spec: JobSpec, owner: String, input: String, bytes: Int64) async throws -> Job {
        let job = try createWithinLimits(owner: owner, spec: spec, takingRateToken: false)
        do {
            if rename(input, engine.inputPath(job)) != 0 {
                throw APIError(.internalServerError, "storage_error", "cannot stage the upload (errno \(errno))")
            }
            try engine.inputReceived(job.id)
            metrics.uploaded(bytes: bytes)
            return try engine.submit(job.id)
        } catch {
            _ = try? engine.cancel(job.id)
            throw error
        }
    }

    /// Refuses callback URLs the SSRF rules would refuse anyway, at creation rather than at delivery.
    func checkCallback(_ spec: JobSpec) throws {
        if let callback = spec.callbackURL {
            _ = try engine.configuration.urlCheck.checkSyntax(callback)
        }
    }

    /// A folder named by id must be one of the owner's, now: filing would otherwise fail the job
    /// after the conversion. A path is created at filing if missing.
    func checkFolder(_ spec: JobSpec, owner: String) throws {
        if case .id(let id) = FolderReference.parse(spec.folder) {
            _ = try library.folder(.id(id), owner: owner)
        }
    }

    /// Per-owner limits (issue 4 §6): creation rate, then unfinished jobs; 429 when either is spent.
    func admit(owner: String, takingRateToken: Bool) throws {
        if takingRateToken, let wait = limits.takeCreation(owner: owner) {
            throw APIError.tooMany(
                "rate_limited",
                "too many jobs created in the last minute (limit \(configuration.jobCreationsPerMinute)); retry in \(wait) s",
                retryAfter: wait
            )
        }
        let active = try engine.activeJobCount(owner: owner)
        if active >= configuration.maxActiveJobsPerOwner {
            throw APIError.tooMany(
                "too_many_jobs",
                "\(active) jobs are still unfinished (limit \(configuration.maxActiveJobsPerOwner)); wait for some to finish",
                retryAfter: 5
            )
        }
    }

    /// The limits of a one-shot create, checked before its body is read, except for the replay of
    /// a key that already created its job: that answers the job, wherever the owner's limits are.
    private func admitBeforeBody(owner: String, key: String?) throws {
        if let key, try idempotency.hasCreatedJob(owner: owner, key: key) { return }
        try admit(owner: owner, takingRateToken: true)
    }

    /// What makes two one-shot creates "the same request" for `Idempotency-Key`: their fields in
    /// a fixed order, and the file's SHA-256.
    private static func oneShotHash(_ fields: [String: String], fileSHA256: String?) -> String {
        sha256(Data((fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + [fileSHA256 ?? ""]).joined(separator: "&").utf8))
    }

    /// `admit` and `engine.create` as one step per owner, so concurrent creates at limit − 1
    /// cannot both pass the count.
    private func createWithinLimits(owner: String, spec: JobSpec, takingRateToken: Bool) throws -> Job {
        try admission.exclusively(owner: owner) {
            try admit(owner: owner, takingRateToken: takingRateToken)
            return try engine.create(owner: owner, spec: spec)
        }
    }

    /// The request's `Idempotency-Key`, nil without one.
    private static func idempotencyKey(_ request: Request) throws -> String? {
        guard let key = request.headers[.idempotencyKey], !key.isEmpty else { return nil }
        guard key.utf8.count <= 255 else {
            throw APIError(.badRequest, "invalid_idempotency_key", "Idempotency-Key must be at most 255 bytes")
        }
        return key
    }

    private static let idempotencyKeyInProgress = APIError(
        .conflict,
        "idempotency_key_in_progress",
        "the first request with this Idempotency-Key is still being processed; retry shortly"
    )

    /// `Idempotency-Key`: the same key and body answer the job the first request created.
    private func idempotent(_ key: String?, owner: String, requestHash: String, _ create: () async throws -> Job) async throws -> (Job, Bool) {
        guard let key else { return (try await create(), false) }
        switch try idempotency.claim(owner: owner, key: key, requestHash: requestHash) {
        case .claimed:
            do {
                let job = try await create()
                try idempotency.complete(owner: owner, key: key, jobID: job.id)
                return (job, false)
            } catch {
                try? idempotency.release(owner: owner, key: key)
                throw error
            }
        case .replay(let id):
            guard let job = try engine.job(id) else { throw APIError(.notFound, "job_not_found", "the job this key created is gone") }
            return (job, true)
        case .mismatch:
            throw APIError(
                .unprocessableContent,
                "idempotency_key_reused",
                "this Idempotency-Key was used with a different request; use a new key for a new job"
            )
        case .inProgress:
            throw Self.idempotencyKeyInProgress
        }
    }

    // MARK: - The rest of the protocol

    func getJob(_ request: Request, _ context: GatewayRequestContext) throws -> Response {
        let job = try ownedJob(try context.parameters.require("id"), owner: try context.requireOwner())
        var headers = HTTPFields()
        if !job.state.status.isTerminal { headers[.retryAfter] = job.state.status == .created ? "2" : "1" }
        return try jsonResponse(jobJSON(job, base: baseURL(for: request)), headers: headers)
    }

    func submitJob(_ request: Request, _ context: GatewayRequestContext) throws -> Response {
        let job = try ownedJob(try context.parameters.require("id"), owner: try context.requireOwner())
        let submitted = job.state.status == .created ? try engine.submit(job.id) : job
        return try jsonResponse(jobJSON(submitted, base: baseURL(for: request)))
    }

    func cancelJob(_ request: Request, _ context: GatewayRequestContext) throws -> Response {
        let job = try ownedJob(try context.parameters.require("id"), owner: try context.requireOwner())
        return try jsonResponse(jobJSON(try engine.cancel(job.id), base: baseURL(for: request)))
    }

    func listJobs(_ request: Request, _ context: GatewayRequestContext) throws -> Response {
        let owner = try context.requireOwner()
        var status: JobStatus?
        if let text = request.query("status") {
            guard let parsed = JobStatus(rawValue: text.uppercased()) else {
                throw APIError(
                    .badRequest,
                    "invalid_argument",
                    "status '\(text)' is not one of \(JobStatus.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            status = parsed
        }
        var type: JobType?
        if let text = request.query("type") {
            guard let parsed = JobType(rawValue: text.uppercased()) else {
                throw APIError(
                    .badRequest,
                    "invalid_type",
                    "type '\(text)' is not one of \(JobType.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            type = parsed
        }
        let limit = try Self.limit(request)
        let page = try engine.jobs(owner: owner, status: status, type: type, limit: limit, cursor: request.query("cursor"))
        let base = baseURL(for: request)
        return try jsonResponse(JobPage(jobs: page.jobs.map { jobJSON($0, base: base) }, nextCursor: page.nextCursor))
    }

    // MARK: - Helpers

    static func limit(_ request: Request) throws -> Int {
        guard let text = request.query("limit") else { return 50 }
        guard let limit = Int(text), (1...200).contains(limit) else {
            throw APIError(.badRequest, "invalid_argument", "limit '\(text)' must be a number from 1 to 200")
        }
        return limit
    }

    static func sha256(_ data: Data) -> String {
        hexString(SHA256.hash(data: data))
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}

struct JobPage: Encodable {
    var jobs: [JobJSON]
    var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case jobs
        case nextCursor = "next_cursor"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jobs, forKey: .jobs)
        try container.encode(nextCursor, forKey: .nextCursor)
    }
}
