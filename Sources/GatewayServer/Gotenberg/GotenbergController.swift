import Foundation
import GatewayCore
import GatewayStore
import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    static let gotenbergTrace = Self("Gotenberg-Trace")!
    static let gotenbergOutputFilename = Self("Gotenberg-Output-Filename")!
    static let pdfgateFolder = Self("Pdfgate-Folder")!
    static let pdfgateDocumentID = Self("Pdfgate-Document-Id")!
    static let pdfgateJobID = Self("Pdfgate-Job-Id")!
}

/// Issue 28: Gotenberg 8's routes on our listener, so its clients reach pdfgate unchanged. Each
/// request is a job of our engine (`GotenbergJobs`); the answer is the PDF, Gotenberg's way.
struct GotenbergController: Sendable {
    let jobs: GotenbergJobs
    let maxUploadBytes: Int64
    /// What `GET /version` says: the Gotenberg API version these routes follow.
    static let apiVersion = "8.36.0"

    var intake: JobIntake { jobs.intake }

    func addRoutes(to group: RouterGroup<GatewayRequestContext>) {
        group.post("/forms/libreoffice/convert") { request, context in try await self.convertOffice(request, context) }
        group.post("/forms/chromium/convert/url") { request, context in try await self.convertURL(request, context) }
    }

    private struct Health: Encodable {
        struct Module: Encodable {
            var status: String
            var timestamp: String
        }
        var status: String
        var details: [String: Module]
    }

    /// `GET /health` (Gotenberg's shape: `up`/`down` per module, 503 when one is down) and
    /// `/version`, without credentials as in Gotenberg. A module is down when its job type
    /// cannot start on this node (`ConverterOutages`).
    func addPublicRoutes(to router: Router<GatewayRequestContext>) {
        let engine = intake.engine
        router.get("/health") { _, _ in
            let now = ISO8601DateFormatter().string(from: Date())
            let modules: [String: JobType] = ["chromium": .urlToPDF, "libreoffice": .docToPDF]
            let details = modules.mapValues { type in
                Health.Module(status: engine.outages.failure(for: type) == nil ? "up" : "down", timestamp: now)
            }
            let up = details.values.allSatisfy { $0.status == "up" }
            return try jsonResponse(Health(status: up ? "up" : "down", details: details), status: up ? .ok : .serviceUnavailable)
        }
        router.get("/version") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; charset=UTF-8"], body: .init(byteBuffer: ByteBuffer(string: Self.apiVersion)))
        }
    }

    // MARK: - Routes

    /// `/forms/libreoffice/convert`: every office file of the form to a PDF, or all merged into one.
    func convertOffice(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try await answering(request, context) { owner, form in
            var fields = GotenbergFields(form.fields)
            var options = ConversionOptions()
            options.landscape = fields.bool("landscape")
            options.browser.pageRanges = fields.string("nativePageRanges")
            options.office.exportFormFields = fields.bool("exportFormFields")
            options.office.exportBookmarks = fields.bool("exportBookmarks")
            options.office.exportNotes = fields.bool("exportNotes")
            options.office.exportNotesPages = fields.bool("exportNotesPages")
            options.office.losslessImageCompression = fields.bool("losslessImageCompression")
            options.office.quality = fields.int("quality") { $0 < 1 ? "value is inferior to 1" : $0 > 100 ? "value is superior to 100" : nil }
            options.office.reduceImageResolution = fields.bool("reduceImageResolution")
            options.office.maxImageResolution = fields.int("maxImageResolution") {
                [75, 150, 300, 600, 1200].contains($0) ? nil : "value is not 75, 150, 300, 600 or 1200"
            }
            options.office.singlePageSheets = fields.bool("singlePageSheets")
            options.office.pdfua = fields.bool("pdfua")
            if let pdfa = fields.string("pdfa") {
                guard let format = OfficeOptions.PDFA(rawValue: pdfa) else {
                    throw GotenbergError(
                        .badRequest,
                        "The PDF format '\(pdfa)' is not supported. Valid formats include PDF/A-1b, PDF/A-2b, PDF/A-3b, and PDF/UA."
                    )
                }
                options.office.pdfa = format
            }
            let merge = fields.bool("merge") ?? false
            try fields.validate()
            let accepted = SourceFormats.document.subtracting(SourceFormats.html)
            let files = form.files.filter { accepted.contains((($0.filename ?? "") as NSString).pathExtension.lowercased()) }
            guard !files.isEmpty else {
                let extensions = accepted.sorted().map { "." + $0 }.joined(separator: " ")
                throw GotenbergError(.badRequest, "Invalid form data: no form file found for extensions: [\(extensions)]")
            }
            guard files.count == 1 || merge else {
                throw GotenbergError(
                    .badRequest,
                    "pdfgate answers one PDF per request for now: send one file, or merge=true to merge \(files.count) files into one"
                )
            }
            let folder = request.headers[.pdfgateFolder]
            let spec: JobSpec
            if files.count == 1 {
                spec = JobSpec(type: .docToPDF, originalFilename: files[0].filename, folder: folder, options: options)
            } else {
                spec = JobSpec(type: .pdfToPDF, folder: folder, options: options, inputs: files.map { .file($0.filename ?? "document") })
            }
            let secrets = JobSecrets(password: fields.string("password"))
            return try await jobs.run([.init(spec: spec, files: files.map(\.path))], owner: owner, secrets: secrets)
        }
    }

    /// `/forms/chromium/convert/url`: the page at `url`, under our SSRF rules.
    func convertURL(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try await answering(request, context) { owner, form in
            var fields = GotenbergFields(form.fields)
            guard let url = fields.string("url") else {
                throw GotenbergError(.badRequest, "Invalid form data: form field 'url' is required")
            }
            let options = try Self.chromiumOptions(&fields)
            try fields.validate()
            let spec = JobSpec(type: .urlToPDF, url: url, folder: request.headers[.pdfgateFolder], options: options)
            return try await jobs.run([.init(spec: spec, files: [])], owner: owner, secrets: JobSecrets())
        }
    }

    /// Gotenberg's Chromium form fields as our options. Gotenberg's own defaults (0.39 in margins,
    /// Letter) are Chromium's; a field left out leaves ours unset, which is the same.
    static func chromiumOptions(_ fields: inout GotenbergFields) throws -> ConversionOptions {
        var options = ConversionOptions()
        options.paperWidth = fields.inches("paperWidth")
        options.paperHeight = fields.inches("paperHeight")
        let sides = ["marginTop", "marginBottom", "marginLeft", "marginRight"].map { fields.inches($0) }
        if sides.contains(where: { $0 != nil }) {
            // Gotenberg's default for a side left out.
            let margins = Set(sides.map { $0 ?? 0.39 })
            guard margins.count == 1 else {
                throw GotenbergError(
                    .badRequest,
                    "pdfgate applies one margin to all four sides for now: send marginTop, marginBottom, marginLeft and marginRight with the same value"
                )
            }
            options.margin = margins.first
        }
        options.landscape = fields.bool("landscape")
        options.printBackground = fields.bool("printBackground")
        options.browser.scale = fields.float("scale")
        options.browser.pageRanges = fields.string("nativePageRanges")
        options.browser.preferCSSPageSize = fields.bool("preferCssPageSize")
        options.browser.singlePage = fields.bool("singlePage")
        options.browser.omitBackground = fields.bool("omitBackground")
        options.browser.generateTaggedPDF = fields.bool("generateTaggedPdf")
        options.browser.generateDocumentOutline = fields.bool("generateDocumentOutline")
        options.browser.waitDelay = fields.seconds("waitDelay")
        options.browser.waitForExpression = fields.string("waitForExpression")
        options.browser.waitForSelector = fields.string("waitForSelector")
        if let media = fields.string("emulatedMediaType") {
            options.browser.emulatedMediaType = BrowserOptions.MediaType(rawValue: media)
            if options.browser.emulatedMediaType == nil {
                fields.invalid("emulatedMediaType", media, "wrong value, expected either 'screen', 'print' or empty")
            }
        }
        options.browser.userAgent = fields.string("userAgent")
        options.browser.extraHTTPHeaders = fields.json("extraHttpHeaders", as: [String: String].self)
        options.browser.failOnHTTPStatusCodes = fields.json("failOnHttpStatusCodes", as: [Int].self)
        options.browser.failOnResourceHTTPStatusCodes = fields.json("failOnResourceHttpStatusCodes", as: [Int].self)
        options.browser.failOnResourceLoadingFailed = fields.bool("failOnResourceLoadingFailed")
        options.browser.failOnConsoleExceptions = fields.bool("failOnConsoleExceptions")
        do {
            try options.validate()
        } catch {
            throw GotenbergError(.badRequest, "Invalid form data: \(APIError.from(error).message)")
        }
        return options
    }

    // MARK: - The answer

    /// Receives the form, runs `body`'s jobs and answers with their PDF, Gotenberg's way; every
    /// error becomes Gotenberg's plain-text answer. The trace id comes back on every answer.
    private func answering(
        _ request: Request,
        _ context: GatewayRequestContext,
        _ body: (String, MultipartForm) async throws -> [GotenbergJobs.Output]
    ) async throws -> Response {
        let trace = request.headers[.gotenbergTrace] ?? UUID().uuidString.lowercased()
        do {
            let owner = try context.requireOwner()
            try intake.admitBeforeBody(owner: owner, key: nil)
            let staging = intake.staging
            let form = try await MultipartForm.receive(
                request.body,
                contentType: request.headers[.contentType] ?? "",
                filePart: nil,
                maxFiles: JobInput.maxCount,
                paths: { staging.incomingPath() },
                maxBytes: maxUploadBytes,
                hashing: false
            )
            // What the jobs did not take (all of it, when they failed) goes.
            defer { for file in form.files { staging.discardIncoming(file.path) } }
            let outputs = try await body(owner, form)
            var response = try await answer(outputs, request: request, context: context)
            response.headers[.gotenbergTrace] = trace
            return response
        } catch {
            var refusal = GotenbergError.from(error)
            refusal.headers[.gotenbergTrace] = trace
            throw refusal
        }
    }

    /// The one PDF, streamed, then taken out of the library unless the caller asked to keep it.
    private func answer(_ outputs: [GotenbergJobs.Output], request: Request, context: GatewayRequestContext) async throws -> Response {
        guard let output = outputs.first, let (document, path) = output.documents.first else {
            throw GotenbergError(.internalServerError)
        }
        let keep = request.headers[.pdfgateFolder] != nil
        // Gotenberg's name: the header's value (slashes and control characters out) or the job's id.
        let name = request.headers[.gotenbergOutputFilename].map { $0.split(separator: "/").last.map(String.init) ?? "" } ?? ""
        let base = name.trimmingCharacters(in: .whitespaces).isEmpty ? output.job.id.lowercased : name
        var headers = HTTPFields()
        headers[.contentType] = "application/pdf"
        headers[.contentDisposition] = FileResponse.disposition("attachment", filename: base + ".pdf")
        headers[.contentLength] = String(document.size)
        headers[.pdfgateJobID] = output.job.id.lowercased
        if keep { headers[.pdfgateDocumentID] = document.id.lowercased }
        let file = try await FileIO().loadFile(path: path, context: context)
        let (jobs, finished) = (jobs, outputs.map(\.job))
        let body = ResponseBody { writer in
            defer { if !keep { jobs.discard(finished) } }
            try await file.write(writer)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
