import Crypto
import Foundation
import GatewayAssembly
import GatewayCore
import GatewayEngine
import GatewayHTTPServing
import GatewayJobModel
import GatewayWire
import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
    static let lastEventID = Self("Last-Event-ID")!
}

/// DESIGN §3.1: the mobile client's job protocol, plus the one-shot create, listing and cancel.
struct JobController: Sendable {
    let intake: JobIntake
    let links: APILinks
    let metrics: GatewayMetrics
    let maxUploadBytes: Int64

    var engine: JobEngine { intake.engine }

    func addRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.on("/v1/jobs", method: .post) { request, context in try await self.createJob(request, context) }
        group.on("/v1/jobs", method: .get) { request, context in try await self.listJobs(request, context) }
        group.on("/v1/jobs/{id}", method: .get) { request, context in try await self.getJob(request, context) }
        group.on("/v1/jobs/{id}", method: .delete) { request, context in try await self.cancelJob(request, context) }
        group.on("/v1/jobs/{id}/submit", method: .post) { request, context in try await self.submitJob(request, context) }
    }

    // MARK: - Create

    /// Every create goes through `JobIntake`: the routes only read the request's shape.
    func createJob(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let owner = try context.requireOwner()
        let key = try Self.idempotencyKey(request)
        let contentType = request.headers[.contentType]?.lowercased() ?? ""
        // Held from the first byte on: a retry while the first request's body is still streaming
        // hears 409 at once instead of uploading the file a second time.
        let created = try await intake.holdingKey(owner: owner, key: key) { held in
            if contentType.hasPrefix("multipart/form-data") {
                return try await createOneShotMultipart(request, owner: owner, key: held)
            } else if contentType.isEmpty || contentType.hasPrefix("application/json") || contentType.hasPrefix("application/x-www-form-urlencoded") {
                // curl -d sends form-urlencoded by default; the body is still our JSON.
                return try await createFromJSON(request, context, owner: owner, key: held)
            } else {
                return try await createOneShotRaw(request, owner: owner, key: held)
            }
        }
        return try await jsonResponse(links.jobJSON(created.job, base: links.baseURL(for: request)), status: created.replay ? .ok : .created)
    }

    private func createFromJSON(
        _ request: Request,
        _ context: GatewayRequestContext,
        owner: String,
        key: JobIntake.HeldKey?
    ) async throws -> (job: Job, replay: Bool) {
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        let data = Data(buffer.readableBytesView)
        // Query parameters are fields too, on every kind of create; the body's win.
        let body = try JobCreateRequest.decoding(data).filling(from: JobCreateRequest(fields: request.queryDictionary))
        let spec = try body.spec(defaultTypeFromFilename: true)
        // The hash is of the parsed request, so key order and spacing do not make a body "different".
        let canonical = JSONEncoder()
        canonical.outputFormatting = .sortedKeys
        let hash = Self.sha256(try canonical.encode(spec))
        return try await intake.create(spec, owner: owner, key: key.map { JobIntake.Key($0, requestHash: hash) }, secrets: body.secrets)
    }

    /// Raw body: the file itself, its name in `Content-Disposition` or `?filename=`, the rest as query parameters.
    private func createOneShotRaw(_ request: Request, owner: String, key: JobIntake.HeldKey?) async throws -> (job: Job, replay: Bool) {
        var fields = request.queryDictionary
        if let disposition = request.headers[.contentDisposition], let filename = ContentDisposition.filename(disposition) {
            fields["original_filename"] = filename
        }
        // A URL job has no file name to look for: its file body is the contradiction the
        // intake's check answers (422 conflicting_type), as for every other entry point.
        if fields["original_filename"] ?? fields["filename"] == nil, fields["type"] != JobType.urlToPDF.rawValue {
            guard let unnamed = Self.unnamedFile(fields, mediaType: request.headers[.contentType]) else {
                // 415, as the intake answers a nameless file: its format cannot be told.
                throw APIError(
                    .unsupportedMediaType,
                    "filename_required",
                    "an ebook's format is in its file name: send Content-Disposition: attachment; filename=\"book.epub\" or add ?filename=book.epub"
                )
            }
            fields["original_filename"] = unnamed
        }
        let spec = try JobCreateRequest(fields: fields).spec(defaultTypeFromFilename: true)
        // Refused before the body streams; `create` checks again once it is in, since the
        // destination folder may have gone meanwhile.
        try await intake.check(spec, owner: owner, files: 1)
        let receiver = BodyToFile(maxBytes: maxUploadBytes)
        try receiver.checkDeclaredLength(request)
        // Before the body: an owner over its limits hears 429 now, not after uploading the file.
        try await intake.admitBeforeBody(owner: owner, key: key)
        return try await intake.staging.withIncomingFile { incoming in
            let written = try await receiver.write(request.body, to: incoming, hashing: key != nil)
            return try await createOneShot(
                spec,
                owner: owner,
                key: key,
                fields: fields,
                files: [incoming],
                sha256: written.sha256,
                bytes: written.bytes
            )
        }
    }

    /// `multipart/form-data`: a `file` part and text parts named like the JSON fields. Several
    /// `file` parts and `url` fields make one job with several inputs, merged in the order the
    /// form sent them.
    private func createOneShotMultipart(_ request: Request, owner: String, key: JobIntake.HeldKey?) async throws -> (job: Job, replay: Bool) {
        let receiver = BodyToFile(maxBytes: maxUploadBytes)
        try receiver.checkDeclaredLength(request)
        // Before the body, as for a raw one-shot: the fields are in the body, the limits are not.
        try await intake.admitBeforeBody(owner: owner, key: key)
        let staging = intake.staging
        let form = try await MultipartForm.receive(
            request.body,
            contentType: request.headers[.contentType] ?? "",
            filePart: "file",
            maxFiles: JobInput.maxCount,
            paths: { staging.incomingPath() },
            maxBytes: maxUploadBytes,
            hashing: key != nil
        )
        // Whatever the create did not take (all of it, when it failed) goes.
        defer { for file in form.files { staging.discardIncoming(file.path) } }
        // Query parameters are fields too, on every kind of create; the form's win.
        var fields = request.queryDictionary.merging(form.fields) { _, form in form }
        // A file and a page, or two of either: one job merging them.
        let merging = form.entries.count > 1
        if merging {
            fields["url"] = nil
            let spec = try JobCreateRequest(fields: fields).spec(
                inputs: form.entries.map { entry in
                    switch entry {
                    case .file(let index): .file(form.files[index].filename ?? "input")
                    case .url(let url): .url(url)
                    }
                }
            )
            let hashes = form.entries.map { entry in
                switch entry {
                case .file(let index): "file:" + (form.files[index].sha256 ?? "")
                case .url(let url): "url:" + url
                }
            }
            return try await createOneShot(
                spec,
                owner: owner,
                key: key,
                fields: fields,
                files: form.files.map(\.path),
                sha256: hashes.joined(separator: ","),
                bytes: form.files.reduce(0) { $0 + $1.bytes }
            )
        }
        guard let file = form.file else {
            throw APIError(
                .badRequest,
                "file_required",
                "the form has no 'file' part; send the document as a part named file (several 'file' parts and 'url' fields are merged in order)"
            )
        }
        if fields["original_filename"] == nil { fields["original_filename"] = file.filename ?? Self.unnamedFile(fields, mediaType: file.mediaType) }
        let spec = try JobCreateRequest(fields: fields).spec(defaultTypeFromFilename: true)
        return try await createOneShot(spec, owner: owner, key: key, fields: fields, files: [file.path], sha256: file.sha256, bytes: file.bytes)
    }

    /// The name of a file sent without one, for the job `fields` ask for (a bad `type` is
    /// refused when the fields are read).
    private static func unnamedFile(_ fields: [String: String], mediaType: String?) -> String? {
        SourceFormats.unnamedFile(type: fields["type"].flatMap(JobType.init(rawValue:)), mediaType: mediaType)
    }

    /// A one-shot create once its body is in: the received files become the new job's inputs. The
    /// rate was taken before the body (`admitBeforeBody`); the key's hash covers fields and files.
    private func createOneShot(
        _ spec: JobSpec,
        owner: String,
        key: JobIntake.HeldKey?,
        fields: [String: String],
        files: [String],
        sha256: String?,
        bytes: Int64
    ) async throws -> (job: Job, replay: Bool) {
        let created = try await intake.create(
            spec,
            owner: owner,
            inputs: files.map { .moving($0) },
            // The password is no part of what makes the request the same one, and stays out of the store.
            key: key.map { JobIntake.Key($0, requestHash: Self.oneShotHash(fields.filter { $0.key != "password" }, fileSHA256: sha256)) },
            rateTaken: true,
            secrets: JobSecrets(password: fields["password"])
        )
        if !created.replay { metrics.uploaded(bytes: bytes) }
        return created
    }

    /// What makes two one-shot creates "the same request" for `Idempotency-Key`: their fields in
    /// a fixed order, and the file's SHA-256.
    private static func oneShotHash(_ fields: [String: String], fileSHA256: String?) -> String {
        sha256(Data((fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + [fileSHA256 ?? ""]).joined(separator: "&").utf8))
    }

    /// The request's `Idempotency-Key`, nil without one.
    private static func idempotencyKey(_ request: Request) throws -> String? {
        guard let key = request.headers[.idempotencyKey], !key.isEmpty else { return nil }
        guard key.utf8.count <= 255 else {
            throw APIError(.badRequest, "invalid_idempotency_key", "Idempotency-Key must be at most 255 bytes")
        }
        return key
    }

    // MARK: - The rest of the protocol

    func getJob(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let job = try await engine.job(try context.parameters.require("id"), ownedBy: try context.requireOwner())
        var headers = HTTPFields()
        if !job.state.status.isTerminal { headers[.retryAfter] = job.state.status == .created ? "2" : "1" }
        return try await jsonResponse(links.jobJSON(job, base: links.baseURL(for: request)), headers: headers)
    }

    func submitJob(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let job = try await engine.job(try context.parameters.require("id"), ownedBy: try context.requireOwner())
        let submitted = await job.state.status == .created ? try engine.submit(job.id) : job
        return try await jsonResponse(links.jobJSON(submitted, base: links.baseURL(for: request)))
    }

    func cancelJob(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let job = try await engine.job(try context.parameters.require("id"), ownedBy: try context.requireOwner())
        return try await jsonResponse(links.jobJSON(try engine.cancel(job.id), base: links.baseURL(for: request)))
    }

    func listJobs(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let owner = try context.requireOwner()
        let status: JobStatus? = try request.choice("status", code: "invalid_argument")
        let type: JobType? = try request.choice("type", code: "invalid_type")
        let limit = try request.pageLimit()
        let page = try await engine.jobs(owner: owner, status: status, type: type, limit: limit, cursor: request.cursor)
        let base = links.baseURL(for: request)
        var out = JSONOutput(capacity: 768 * page.jobs.count + 64)
        out.beginObject()
        out.key("jobs")
        out.beginArray()
        for job in page.jobs { try await links.jobJSON(job, base: base).write(to: &out) }
        out.endArray()
        out.key("next_cursor")
        out.string(page.nextCursor)
        out.endObject()
        return jsonResponse(bytes: out.bytes)
    }

    // MARK: - Helpers

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
