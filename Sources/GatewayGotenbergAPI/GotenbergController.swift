import Foundation
import GatewayAssembly
import GatewayEngine
import GatewayHTTPServing
import GatewayJobModel
import GatewayLibraryModel
import GatewaySettings
import GatewayURLSecurity
import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    package static let gotenbergTrace = Self("Gotenberg-Trace")!
    static let gotenbergOutputFilename = Self("Gotenberg-Output-Filename")!
    static let pdfgateFolder = Self("Pdfgate-Folder")!
    static let pdfgateDocumentID = Self("Pdfgate-Document-Id")!
    static let pdfgateJobID = Self("Pdfgate-Job-Id")!
}

/// The settings Gotenberg's routes answer by, from its flags (`GotenbergSettings`).
package struct GotenbergRouteSettings: Sendable {
    /// `--api-timeout`: a request's whole time, the wait for room included; nil: the jobs' own.
    var timeout: Duration? = nil
    /// `--chromium-max-queue-size` and LibreOffice's: requests that may wait for room.
    var queueSizes: [GotenbergModule: Int] = [:]
    /// `--api-disable-download-from`, the other way round.
    var downloadFrom = true
    var prometheusNamespace = "gotenberg"
    var metricsPath = "/prometheus/metrics"
    /// Whether a request over its owner's limits waits for room (`GotenbergAdmission`): yes,
    /// unless the operator set those limits themselves.
    var waitsForRoom = true
    /// `--chromium-disable-javascript`: pages on its routes run no script.
    var javaScript = true
    /// `--webhook-enable-sync-mode`: a webhook request answers once its delivery ended.
    var webhookSync = false
    /// The operations whose engines the operator set to pdftk alone (`PDFENGINES_*_ENGINES`):
    /// pdftk's limits apply to them.
    var pdftkOnly: Set<String> = []

    package init(
        timeout: Duration? = nil,
        queueSizes: [GotenbergModule: Int] = [:],
        downloadFrom: Bool = true,
        prometheusNamespace: String = "gotenberg",
        metricsPath: String = "/prometheus/metrics",
        waitsForRoom: Bool = true,
        javaScript: Bool = true,
        webhookSync: Bool = false,
        pdftkOnly: Set<String> = []
    ) {
        self.pdftkOnly = pdftkOnly
        self.javaScript = javaScript
        self.webhookSync = webhookSync
        self.timeout = timeout
        self.queueSizes = queueSizes
        self.downloadFrom = downloadFrom
        self.prometheusNamespace = prometheusNamespace
        self.metricsPath = metricsPath
        self.waitsForRoom = waitsForRoom
    }
}

/// Gotenberg 8's routes on our listener, so its clients reach pdfgate unchanged. Each request
/// is a job of our engine (`GotenbergJobs`); the answer is the PDF, Gotenberg's way.
package struct GotenbergController: Sendable {
    let jobs: GotenbergJobs
    /// Poppler, out of process: the page counts and titles a merge's outline is built from.
    let inspector: any PDFInspector
    let maxUploadBytes: Int64
    /// The modules whose routes answer; the others' are 404, as when Gotenberg disables them.
    var modules = Set(GotenbergModule.allCases)
    /// Where webhook mode records what it owes; nil (no webhook module) ignores its headers.
    var webhooks: WebhookSender? = nil
    /// Whether a client's hang-up cancels its request's jobs (live connections only).
    var hangUps = HangUpWatch()
    /// Chromium's and LibreOffice's restarts, for `/prometheus/metrics`.
    var restarts: @Sendable () -> (chromium: Int, libreOffice: Int) = { (0, 0) }
    /// Gotenberg's `GET /debug`, when the operator turned it on; nil: 404, as in Gotenberg.
    var debug: (@Sendable () async -> GotenbergDebug)? = nil
    /// The Gotenberg settings its routes answer by (`--api-timeout`, `--prometheus-namespace`…).
    var settings = GotenbergRouteSettings()

    package init(
        jobs: GotenbergJobs,
        inspector: any PDFInspector,
        maxUploadBytes: Int64,
        modules: Set<GotenbergModule> = Set(GotenbergModule.allCases),
        webhooks: WebhookSender? = nil,
        hangUps: HangUpWatch = HangUpWatch(),
        restarts: @escaping @Sendable () -> (chromium: Int, libreOffice: Int) = { (0, 0) },
        debug: (@Sendable () async -> GotenbergDebug)? = nil,
        settings: GotenbergRouteSettings = GotenbergRouteSettings()
    ) {
        self.jobs = jobs
        self.inspector = inspector
        self.maxUploadBytes = maxUploadBytes
        self.modules = modules
        self.webhooks = webhooks
        self.hangUps = hangUps
        self.restarts = restarts
        self.debug = debug
        self.settings = settings
    }
    /// What `GET /version` says: the Gotenberg API version these routes follow.
    static let apiVersion = "8.36.0"

    /// Gotenberg's `GET /`, word for word: what its clients and probes expect there. A browser
    /// gets our web page instead (`WebController`), told apart by asking for HTML.
    package static func rootResponse() -> Response {
        let words =
            "Hey, Gotenberg has no UI, it's an API. Head to the <a href=\"https://gotenberg.dev\">documentation</a> to learn how to interact with it 🚀"
        // HTML, if a small one: the page's headers keep it from running or framing anything.
        var headers = PageSecurity.headers
        headers[.contentType] = "text/html; charset=UTF-8"
        headers[.vary] = "Accept"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: words)))
    }

    var intake: JobIntake { jobs.intake }

    /// `downloadFrom`: fetched under our SSRF rules, within the upload limit and a minute.
    var downloads: GotenbergDownloads {
        GotenbergDownloads(urlGuard: URLGuard(check: intake.urlCheck.serving(.download)), maxBytes: maxUploadBytes, timeout: .seconds(60))
    }

    /// `/` (unless our web page answers there: it decides by the Accept header),
    /// `/favicon.ico` and `/version`: behind Gotenberg's Basic auth where it is on, as there.
    package func addInfoRoutes(to group: RouterGroup<GatewayRequestContext>, root: Bool) {
        if root {
            group.get("/") { _, _ in Self.rootResponse() }
        }
        // Gotenberg answers a browser's icon request with nothing; our page's icon is /ui/favicon.svg.
        group.get("/favicon.ico") { _, _ in Response(status: .noContent) }
        group.get("/version") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; charset=UTF-8"], body: .init(byteBuffer: ByteBuffer(string: Self.apiVersion)))
        }
    }

    package func addRoutes(to group: RouterGroup<GatewayRequestContext>) {
        if let debug {
            group.get("/debug") { _, _ in try await debug().response() }
        }
        if modules.contains(.libreoffice) {
            group.post("/forms/libreoffice/convert") { request, context in try await self.convertOffice(request, context) }
        }
        if modules.contains(.chromium) {
            group.post("/forms/chromium/convert/url") { request, context in try await self.convertURL(request, context) }
            addChromiumFileRoutes(to: group)
            addScreenshotRoutes(to: group)
        }
        if modules.contains(.pdfengines) { addPDFEngineRoutes(to: group) }
        if modules.contains(.prometheus) {
            // Behind the credentials, as Gotenberg's basic auth guards it (our /metrics is open).
            let admission = jobs.admission
            let metrics = GotenbergMetrics(
                engine: intake.engine,
                restarts: restarts,
                namespace: settings.prometheusNamespace,
                waiting: { admission?.waitingCount($0) ?? 0 }
            )
            group.get(RouterPath(settings.metricsPath)) { _, _ in try await metrics.response() }
        }
    }

    private struct Health: Encodable {
        struct Module: Encodable {
            var status: String
            var timestamp: String
        }
        var status: String
        var details: [String: Module]
    }

    /// `GET /health` (Gotenberg's shape: `up`/`down` per module, 503 when one is down),
    /// without credentials as in Gotenberg. A module is down when its job type
    /// cannot start on this node (`ConverterOutages`).
    package func addPublicRoutes(to router: RouterGroup<GatewayRequestContext>) {
        let engine = intake.engine
        let checked = [GotenbergModule.chromium: JobType.urlToPDF, .libreoffice: .docToPDF].filter { self.modules.contains($0.key) }
        let health: @Sendable (Request, GatewayRequestContext) async throws -> Response = { _, _ in
            let now = ISO8601DateFormatter().string(from: Date())
            let modules = Dictionary(uniqueKeysWithValues: checked.map { ($0.key.rawValue, $0.value) })
            let details = modules.mapValues { type in
                Health.Module(status: engine.outages.failure(for: type) == nil ? "up" : "down", timestamp: now)
            }
            let up = details.values.allSatisfy { $0.status == "up" }
            return try jsonResponse(Health(status: up ? "up" : "down", details: details), status: up ? .ok : .serviceUnavailable)
        }
        router.get("/health", use: health)
        // Load balancers probe with HEAD: the same status, no body.
        router.head("/health") { request, context in
            let answer = try await health(request, context)
            return Response(status: answer.status, headers: answer.headers)
        }
    }

    // MARK: - Routes

    /// `/forms/libreoffice/convert`: each office file to a PDF (several answer as a zip of
    /// `<file>.pdf`), or all merged into one with `merge`; then the post-processing fields.
    func convertOffice(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try await answering(request, context) { owner, form in
            var fields = GotenbergFields(form)
            var options = ConversionOptions()
            options.landscape = fields.bool("landscape")
            options.browser.pageRanges = fields.string("nativePageRanges")
            options.office.exportFormFields = fields.bool("exportFormFields")
            options.office.exportBookmarks = fields.bool("exportBookmarks")
            options.office.exportNotes = fields.bool("exportNotes")
            options.office.exportNotesPages = fields.bool("exportNotesPages")
            options.office.losslessImageCompression = fields.bool("losslessImageCompression")
            options.office.quality = fields.int("quality") { $0 < 1 ? "value is inferior to 1" : $0 > 100 ? "value is superior to 100" : nil }
            // Gotenberg hands LibreOffice both, and lossless wins; /v1 refuses the pair by name.
            if options.office.losslessImageCompression == true, let quality = options.office.quality {
                options.office.quality = nil
                GotenbergWarnings.note("quality \(quality) ignored: losslessImageCompression keeps images lossless, as on Gotenberg")
            }
            options.office.reduceImageResolution = fields.bool("reduceImageResolution")
            options.office.maxImageResolution = fields.int("maxImageResolution") {
                [75, 150, 300, 600, 1200].contains($0) ? nil : "value is not 75, 150, 300, 600 or 1200"
            }
            options.office.singlePageSheets = fields.bool("singlePageSheets")
            options.office.pdfua = fields.bool("pdfua")
            options.office.libreOfficeExport = fields.libreOfficeExport()
            let merge = fields.bool("merge") ?? false
            // LibreOffice writes PDF/A as it exports one file; merged files need it after the merge.
            if !merge { options.office.pdfa = try GotenbergPostProcessing.pdfa(fields) }
            let post = try GotenbergPostProcessing(&fields, files: form.files, route: .init(pdfaByOperation: merge))
            let files = try Self.inputs(form, accepting: SourceFormats.document.subtracting(SourceFormats.html), &fields)
            try fields.validate()
            let folder = request.headers[.pdfgateFolder]
            let secrets = JobSecrets(password: fields.string("password"))
            let operations = post.all.isEmpty ? nil : post.all
            let planned: [GotenbergJobs.Planned]
            if merge {
                let spec = JobSpec(
                    type: .pdfToPDF,
                    folder: folder,
                    options: options,
                    operations: operations,
                    inputs: files.map { .file($0.filename ?? "document") }
                )
                planned = [.init(spec: spec, files: files.map(\.path), parts: post.makesParts)]
            } else {
                planned = files.map { file in
                    let spec = JobSpec(type: .docToPDF, originalFilename: file.filename, folder: folder, options: options, operations: operations)
                    // One file alone is named by its job, as Gotenberg names what it generated;
                    // split, even unified into one, by the file's name.
                    let alone = files.count == 1 && !post.makesParts && !post.splits
                    return .init(spec: spec, files: [file.path], name: alone ? nil : (file.filename ?? "document") + ".pdf", parts: post.makesParts)
                }
            }
            return try await jobs.run(planned, owner: owner, secrets: secrets)
        }
    }

    /// The module whose queue a request waits in, by its route.
    static func module(of request: Request) -> GotenbergModule {
        let path = request.uri.path
        if path.contains("/forms/chromium/") { return .chromium }
        if path.contains("/forms/libreoffice/") { return .libreoffice }
        return .pdfengines
    }

    /// The form's input files: those with an accepted extension, not sent under a field that
    /// Gotenberg reserves for other files (`embeds`, `watermark`, `stamp`, `facturxXml`).
    static func inputs(
        _ form: MultipartForm,
        accepting accepted: Set<String>,
        _ fields: inout GotenbergFields
    ) throws(GotenbergError) -> [MultipartForm.File] {
        let reserved: Set<String> = ["embeds", "watermark", "stamp", "facturxXml"]
        let files = form.files.filter { file in
            !reserved.contains(file.field ?? "") && accepted.contains(((file.filename ?? "") as NSString).pathExtension.lowercased())
        }
        if files.isEmpty {
            let extensions = accepted.sorted().map { "." + $0 }.joined(separator: " ")
            fields.append("no form file found for extensions: [\(extensions)]")
        }
        return files
    }

    /// `/forms/chromium/convert/url`: the page at `url`, under our SSRF rules.
    func convertURL(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        try await answering(request, context) { owner, form in
            var fields = GotenbergFields(form.fields)
            let url = fields.string("url")
            if let url { try Self.refuseFileScheme(url) }
            var options = try Self.chromiumOptions(&fields, javaScript: settings.javaScript)
            // Its header and footer come as files, as on the HTML route.
            try Self.headerAndFooter(of: form, into: &options)
            let post = try Self.chromiumPostProcessing(&fields, form)
            // After every other field, as Gotenberg reads it.
            if url == nil { fields.append("form field 'url' is required") }
            try fields.validate()
            let spec = JobSpec(
                type: .urlToPDF,
                url: url,
                folder: request.headers[.pdfgateFolder],
                options: options,
                operations: post.all.isEmpty ? nil : post.all
            )
            return try await jobs.run(
                [.init(spec: spec, files: [], name: Self.printedName(request), parts: post.makesParts)],
                owner: owner,
                secrets: JobSecrets()
            )
        }
    }

    /// What Chromium's PDF is called: Gotenberg prints it under the request's
    /// `Gotenberg-Output-Filename`, so a split's parts are `foo_0.pdf`, `foo_1.pdf` in `foo.zip`;
    /// without one, under the job's id.
    static func printedName(_ request: Request) -> String? {
        GotenbergAnswer.outputName(request.headers[.gotenbergOutputFilename]).map { $0 + ".pdf" }
    }

    /// `header.html` and `footer.html` among the form's files, as Chromium's templates.
    static func headerAndFooter(of form: MultipartForm, into options: inout ConversionOptions) throws {
        let named = { (name: String) in form.files.first { $0.filename?.lowercased() == name } }
        options.browser.headerHTML = try named("header.html").map { try text(atPath: $0.path) }
        options.browser.footerHTML = try named("footer.html").map { try text(atPath: $0.path) }
    }

    /// A `file://` URL is Gotenberg's 400 on its URL routes, before any rule of ours sees it (it
    /// would be our SSRF rules' 403 otherwise): those routes fetch remote pages; an uploaded page
    /// goes to `/convert/html`.
    static func refuseFileScheme(_ url: String) throws(GotenbergError) {
        guard let colon = url.firstIndex(of: ":"), url[..<colon].lowercased() == "file" else { return }
        throw GotenbergError(
            .badRequest,
            "file:// URLs are not accepted on this route. Use the /convert/html or /convert/markdown routes to render local HTML"
        )
    }

    /// What Chromium's routes take after printing: no `flatten`; `pdfua` re-exports the printed
    /// PDF with LibreOffice, as Gotenberg's convert engine does.
    static func chromiumPostProcessing(_ fields: inout GotenbergFields, _ form: MultipartForm) throws(GotenbergError) -> GotenbergPostProcessing {
        try GotenbergPostProcessing(&fields, files: form.files, route: .init(takesFlatten: false))
    }

    /// Gotenberg's Chromium form fields as our options. Gotenberg's own defaults (0.39 in margins,
    /// Letter) are Chromium's; a field left out leaves ours unset, which is the same.
    static func chromiumOptions(_ fields: inout GotenbergFields, javaScript: Bool) throws -> ConversionOptions {
        var options = ConversionOptions()
        options.paperWidth = fields.inches("paperWidth")
        options.paperHeight = fields.inches("paperHeight")
        options.marginTop = fields.inches("marginTop")
        options.marginBottom = fields.inches("marginBottom")
        options.marginLeft = fields.inches("marginLeft")
        options.marginRight = fields.inches("marginRight")
        // Gotenberg's default for a side left out, when another is set.
        if [options.marginTop, options.marginBottom, options.marginLeft, options.marginRight].contains(where: { $0 != nil }) {
            options.margin = 0.39
        }
        options.landscape = fields.bool("landscape")
        options.printBackground = fields.bool("printBackground")
        options.browser.scale = fields.float("scale")
        options.browser.pageRanges = fields.string("nativePageRanges")
        options.browser.preferCSSPageSize = fields.bool("preferCssPageSize")
        options.browser.singlePage = fields.bool("singlePage")
        options.browser.generateTaggedPDF = fields.bool("generateTaggedPdf")
        options.browser.generateDocumentOutline = fields.bool("generateDocumentOutline")
        try pageOptions(&fields, into: &options, javaScript: javaScript)
        // Chromium's refusal, as Gotenberg words it, once the form parsed (`/v1` makes
        // omit_background imply print_background instead).
        if options.browser.omitBackground == true, options.printBackground != true {
            fields.refusal = GotenbergError(.badRequest, "omitBackground requires printBackground set to true")
        }
        return options
    }

    /// What every Chromium route takes, screenshots included: how the page is loaded and
    /// waited for, and what fails it (Gotenberg's `FormDataChromiumOptions`).
    /// `javaScript` off is the operator's `--chromium-disable-javascript`, for every page here.
    static func pageOptions(_ fields: inout GotenbergFields, into options: inout ConversionOptions, javaScript: Bool) throws {
        if !javaScript { options.browser.javaScript = false }
        // Read for their errors: a page prints once loaded and its requests are done, which is
        // what waiting for the network to idle comes to.
        _ = fields.bool("skipNetworkIdleEvent")
        _ = fields.bool("skipNetworkAlmostIdleEvent")
        options.browser.omitBackground = fields.bool("omitBackground")
        options.browser.waitDelay = fields.seconds("waitDelay")
        options.browser.waitForExpression = fields.string("waitForExpression")
        // Gotenberg's `waitWindowStatus`: print once `window.status` says so.
        if let status = fields.string("waitWindowStatus") {
            let literal = String(decoding: (try? JSONSerialization.data(withJSONObject: status, options: .fragmentsAllowed)) ?? Data(), as: UTF8.self)
            let awaited = "window.status === \(literal)"
            options.browser.waitForExpression = options.browser.waitForExpression.map { "(\(awaited)) && (\($0))" } ?? awaited
        }
        // Gotenberg's is an object of feature names to values.
        options.browser.emulatedMediaFeatures = fields.goJSON(
            "emulatedMediaFeatures",
            as: [String: String].self,
            into: .object(goType: "map[string]string")
        )?
        .sorted { $0.key < $1.key }.map { BrowserOptions.MediaFeature(name: $0.key, value: $0.value) }
        options.browser.ignoreResourceHTTPStatusDomains = fields.goJSON(
            "ignoreResourceHttpStatusDomains",
            as: [String].self,
            into: .array(goType: "[]string")
        )
        options.browser.waitForSelector = fields.string("waitForSelector")
        if let media = fields.string("emulatedMediaType") {
            options.browser.emulatedMediaType = BrowserOptions.MediaType(rawValue: media)
            if options.browser.emulatedMediaType == nil {
                fields.invalid("emulatedMediaType", media, "wrong value, expected either 'screen', 'print' or empty")
            }
        }
        options.browser.userAgent = fields.string("userAgent")
        if let extra = fields.extraHeaders() {
            options.browser.extraHTTPHeaders = extra.headers
            options.browser.extraHTTPHeadersScope = extra.scope
        }
        options.browser.cookies = fields.cookies()
        options.browser.failOnHTTPStatusCodes = fields.goJSON("failOnHttpStatusCodes", as: [Int].self, into: .array(goType: "[]int64"))
        options.browser.failOnResourceHTTPStatusCodes = fields.goJSON(
            "failOnResourceHttpStatusCodes",
            as: [Int].self,
            into: .array(goType: "[]int64")
        )
        options.browser.failOnResourceLoadingFailed = fields.bool("failOnResourceLoadingFailed")
        options.browser.failOnConsoleExceptions = fields.bool("failOnConsoleExceptions")
        // Page ranges Chromium cannot read are its refusal, in Gotenberg's words, not a form problem.
        if let ranges = options.browser.pageRanges, BrowserOptions.pageRanges(ranges, allowingBackwards: true) == nil {
            fields.refusal = GotenbergError(.badRequest, "Chromium does not handle the page ranges '\(ranges)' (nativePageRanges) syntax")
            options.browser.pageRanges = nil
        }
        do {
            try options.validate()
        } catch {
            throw GotenbergError(.badRequest, "Invalid form data: \(APIError.from(error).message)")
        }
    }
}
