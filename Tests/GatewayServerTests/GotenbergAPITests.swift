import Foundation
import GatewayAssembly
import GatewayTestSupport
import GatewayURLSecurity
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayGotenbergAPI
@testable import GatewayServer
@testable import GatewaySettings

/// Gotenberg 8's routes on our listener, each request a job of our engine, answered
/// with the PDF and Gotenberg's headers, refused in Gotenberg's words.
@Suite("Gotenberg's API")
struct GotenbergAPITests {
    /// Posts a Gotenberg form; `headers` beside its Content-Type.
    static func post(_ client: some TestClientProtocol, _ path: String, _ parts: [FormPart], headers: HTTPFields = [:]) async throws -> TestResponse {
        let form = try FormPart.encode(parts)
        var fields = headers
        fields[.contentType] = form.contentType
        return try await client.execute(uri: path, method: .post, headers: fields, body: ByteBuffer(bytes: form.bytes))
    }

    /// The PDF of an answer, written where pdfinfo can read it.
    static func pages(_ response: TestResponse, in directory: TemporaryDirectory) async throws -> Int? {
        let path = directory.file(UUID().uuidString + ".pdf")
        try Data(response.body.readableBytesView).write(to: URL(fileURLWithPath: path))
        return try await pdfinfoPageCount(path)
    }

    @Test("an office file becomes the PDF in the answer, named as asked, traced, run as a job, and not kept")
    func officeFile() async throws {
        let gateway = try await InProcessGateway()
        let scratch = TemporaryDirectory("gotenberg-answers")
        try await gateway.run(converting: true) { client in
            let answer = try await Self.post(
                client,
                "/forms/libreoffice/convert",
                [.file("files", path: Fixtures.office("sample.docx")), .text("landscape", "true")],
                headers: [.gotenbergOutputFilename: "Quarterly report", .gotenbergTrace: "trace-42"]
            )
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            #expect(answer.headers[.contentType] == "application/pdf")
            #expect(answer.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"Quarterly report.pdf\"") == true)
            #expect(answer.headers[.gotenbergTrace] == "trace-42")
            let pdf = scratch.file("answer.pdf")
            try Data(answer.body.readableBytesView).write(to: URL(fileURLWithPath: pdf))
            let info = try await run("/usr/bin/pdfinfo", [pdf])
            #expect(Int(info.stdout.firstMatch(of: /Pages:\s+(\d+)/)?.1 ?? "") ?? 0 >= 1, "\(info.stdout)")
            // landscape=true reached LibreOffice: the page is wider than it is tall.
            let size = info.stdout.firstMatch(of: /Page size:\s+([\d.]+) x ([\d.]+)/)
            #expect((size.flatMap { Double($0.1) } ?? 0) > (size.flatMap { Double($0.2) } ?? 0), "\(info.stdout)")
            // A job of the engine, visible in the job list; nothing left in the library.
            let jobs = try await client.execute(uri: "/v1/jobs", method: .get).json["jobs"] as? [[String: Any]]
            #expect(jobs?.first?["status"] as? String == "SUCCEEDED", "\(String(describing: jobs))")
            #expect(jobs?.first?["job_id"] as? String == answer.headers[.pdfgateJobID])
            #expect(jobs?.first?["trace"] as? String == "trace-42", "the request's trace is the job's")
            let documents = try await client.execute(uri: "/v1/documents", method: .get).json["documents"] as? [Any]
            #expect(documents?.isEmpty == true, "the answer carried the PDF; the library keeps none: \(String(describing: documents))")
        }
    }

    @Test("with Pdfgate-Folder the PDF is also filed, its id in the answer; merge=true makes one PDF of several files")
    func keptAndMerged() async throws {
        let gateway = try await InProcessGateway()
        let scratch = TemporaryDirectory("gotenberg-answers")
        try await gateway.run(converting: true) { client in
            let answer = try await Self.post(
                client,
                "/forms/libreoffice/convert",
                [.file("files", path: Fixtures.office("sample.docx")), .file("files", path: Fixtures.office("sample.odt")), .text("merge", "true")],
                headers: [.pdfgateFolder: "Invoices/2026"]
            )
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            let id = try #require(answer.headers[.pdfgateDocumentID])
            let document = try await client.execute(uri: "/v1/documents/\(id)", method: .get)
            #expect(document.status == .ok)
            #expect(document.json["folder"] as? String == "Invoices/2026", "\(document.json)")
            let merged = try await Self.pages(answer, in: scratch)
            #expect(merged == document.json["page_count"] as? Int, "\(document.json)")
            #expect((merged ?? 0) >= 2)
        }
    }

    @Test("an uploaded index.html prints with its footer; a Markdown template gets its pages' HTML; files beside the page are loaded")
    func htmlAndMarkdown() async throws {
        let gateway = try await InProcessGateway()
        let files = TemporaryDirectory("gotenberg-html")
        func write(_ name: String, _ text: String, in folder: String) throws -> String {
            try FileManager.default.createDirectory(atPath: files.file(folder), withIntermediateDirectories: true)
            let path = files.file(folder + "/" + name)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let index = try write("index.html", "<html><body><h1>Quarterly figures</h1><p>Revenue rose.</p></body></html>", in: "html")
        let footer = try write(
            "footer.html",
            #"<html><body><p style="font-size:10px">Page <span class="pageNumber"></span></p></body></html>"#,
            in: "html"
        )
        let template = try write("index.html", #"<html><body>{{ toHTML "notes.md" }}</body></html>"#, in: "markdown")
        let notes = try write("notes.md", "# Meeting notes\n\nWe agreed on **three** points:\n\n- ship\n- test\n- rest\n", in: "markdown")
        let throwing = try write("index.html", "<html><body><script>throw new Error('boom')</script>Text</body></html>", in: "throwing")
        let page = try write(
            "index.html",
            #"<html><head><link rel="stylesheet" href="style.css"></head><body><h1>Assets</h1><img src="logo.png"></body></html>"#,
            in: "assets"
        )
        let style = try write("style.css", #"h1::after { content: " styled by its sheet"; }"#, in: "assets")
        try await gateway.run(converting: true) { client in
            // Only the left margin differs from Gotenberg's default.
            let html = try await Self.post(
                client,
                "/forms/chromium/convert/html",
                [.file("files", path: index), .file("files", path: footer), .text("marginLeft", "2")]
            )
            #expect(html.status == .ok, "\(String(buffer: html.body))")
            let htmlPDF = files.file("html.pdf")
            try Data(html.body.readableBytesView).write(to: URL(fileURLWithPath: htmlPDF))
            let htmlText = try await run("/usr/bin/pdftotext", [htmlPDF, "-"]).stdout
            #expect(htmlText.contains("Quarterly figures") && htmlText.contains("Page 1"), "\(htmlText)")
            // 2 in is 144 pt, plus the body's own 8 px (6 pt).
            let left = try await WordBox.of("Quarterly", in: htmlPDF)?.xMin
            #expect(left.map { $0 > 145 && $0 < 155 } == true, "\(String(describing: left))")

            let markdown = try await Self.post(
                client,
                "/forms/chromium/convert/markdown",
                [.file("files", path: template), .file("files", path: notes)]
            )
            #expect(markdown.status == .ok, "\(String(buffer: markdown.body))")
            let markdownPDF = files.file("markdown.pdf")
            try Data(markdown.body.readableBytesView).write(to: URL(fileURLWithPath: markdownPDF))
            let markdownText = try await run("/usr/bin/pdftotext", [markdownPDF, "-"]).stdout
            #expect(markdownText.contains("Meeting notes") && markdownText.contains("three") && !markdownText.contains("**"), "\(markdownText)")

            let missing = try await Self.post(
                client,
                "/forms/chromium/convert/markdown",
                [.file("files", path: template), .named("files", path: notes, filename: "other.md")]
            )
            #expect(missing.status == .badRequest && String(buffer: missing.body) == "Markdown file(s) not found: 'notes.md'")
            let noIndex = try await Self.post(client, "/forms/chromium/convert/markdown", [])
            #expect(String(buffer: noIndex.body) == "Invalid form data: form file 'index.html' is required\nno form file found for extensions: [.md]")
            // Gotenberg's failOn* rules answer 409.
            let failed = try await Self.post(
                client,
                "/forms/chromium/convert/html",
                [.file("files", path: throwing), .text("failOnConsoleExceptions", "true")]
            )
            #expect(failed.status == .conflict && String(buffer: failed.body).contains("boom"), "\(failed.status) \(String(buffer: failed.body))")
            // Files beside index.html are served to the page from its own origin, as Gotenberg does.
            let withAssets = try await Self.post(
                client,
                "/forms/chromium/convert/html",
                [
                    .file("files", path: page), .file("files", path: style),
                    .named("files", path: Fixtures.root + "/web-set/logo.png", filename: "logo.png"),
                ]
            )
            #expect(withAssets.status == .ok, "\(String(buffer: withAssets.body))")
            let assetsPDF = files.file("assets.pdf")
            try Data(withAssets.body.readableBytesView).write(to: URL(fileURLWithPath: assetsPDF))
            #expect(try await run("/usr/bin/pdftotext", [assetsPDF, "-"]).stdout.contains("styled by its sheet"))
            let images = try await run("/usr/bin/pdfimages", ["-list", assetsPDF]).stdout
            #expect(images.split(separator: "\n").count > 2, "the image was loaded: \(images)")
        }
    }

    @Test("refusals are Gotenberg's: plain text, its words, the trace id back")
    func refusals() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run(converting: true) { client in
            let noFile = try await Self.post(client, "/forms/libreoffice/convert", [.text("landscape", "true")], headers: [.gotenbergTrace: "t1"])
            #expect(noFile.status == .badRequest)
            #expect(noFile.headers[.contentType] == "text/plain; charset=UTF-8")
            #expect(noFile.headers[.gotenbergTrace] == "t1")
            #expect(
                String(buffer: noFile.body).hasPrefix("Invalid form data: no form file found for extensions: ["),
                "\(String(buffer: noFile.body))"
            )
            let badFlag = try await Self.post(
                client,
                "/forms/libreoffice/convert",
                [.file("files", path: Fixtures.office("sample.docx")), .text("landscape", "yes"), .text("quality", "101")]
            )
            #expect(badFlag.status == .badRequest)
            #expect(
                String(buffer: badFlag.body)
                    == "Invalid form data: form field 'landscape' is invalid (got 'yes', resulting to strconv.ParseBool: parsing \"yes\": invalid syntax)\n"
                    + "form field 'quality' is invalid (got '101', resulting to value is superior to 100)"
            )
            let pdfa = try await Self.post(
                client,
                "/forms/libreoffice/convert",
                [.file("files", path: Fixtures.office("sample.docx")), .text("pdfa", "PDF/A-9")]
            )
            // Gotenberg's words, as its integration tests expect them.
            #expect(
                String(buffer: pdfa.body)
                    == "The requested PDF format is not supported, or no PDF engine could apply it. Valid formats include PDF/A-1b, PDF/A-2b, PDF/A-3b, and PDF/UA.",
                "\(String(buffer: pdfa.body))"
            )
            let noURL = try await Self.post(client, "/forms/chromium/convert/url", [.text("landscape", "true")])
            #expect(noURL.status == .badRequest && String(buffer: noURL.body) == "Invalid form data: form field 'url' is required")
            // Many bad values are listed in the order Gotenberg reads its fields, the url last.
            let many = try await Self.post(
                client,
                "/forms/chromium/convert/url",
                ["paperWidth", "landscape", "waitDelay", "skipNetworkIdleEvent", "failOnConsoleExceptions"].map { .text($0, "foo") }
            )
            #expect(
                String(buffer: many.body) == """
                    Invalid form data: form field 'skipNetworkIdleEvent' is invalid (got 'foo', resulting to strconv.ParseBool: parsing "foo": invalid syntax)
                    form field 'failOnConsoleExceptions' is invalid (got 'foo', resulting to strconv.ParseBool: parsing "foo": invalid syntax)
                    form field 'waitDelay' is invalid (got 'foo', resulting to time: invalid duration "foo")
                    form field 'landscape' is invalid (got 'foo', resulting to strconv.ParseBool: parsing "foo": invalid syntax)
                    form field 'paperWidth' is invalid (got 'foo', resulting to strconv.ParseFloat: parsing "foo": invalid syntax)
                    form field 'url' is required
                    """,
                "\(String(buffer: many.body))"
            )
            // Our SSRF rules hold on Gotenberg's door too, answered as its deny list answers.
            let loopback = try await Self.post(client, "/forms/chromium/convert/url", [.text("url", "http://127.0.0.1:9/")])
            #expect(
                loopback.status == .forbidden && String(buffer: loopback.body) == "Forbidden",
                "\(loopback.status) \(String(buffer: loopback.body))"
            )
            // A file:// URL is Gotenberg's own 400 on both URL routes, before our rules see it.
            for route in ["/forms/chromium/convert/url", "/forms/chromium/screenshot/url"] {
                let file = try await Self.post(client, route, [.text("url", "FILE:///tmp/foo/index.html")])
                #expect(
                    file.status == .badRequest
                        && String(buffer: file.body)
                            == "file:// URLs are not accepted on this route. Use the /convert/html or /convert/markdown routes to render local HTML",
                    "\(route): \(file.status) \(String(buffer: file.body))"
                )
            }
            // Nothing was kept of any of them.
            let documents = try await client.execute(uri: "/v1/documents", method: .get).json["documents"] as? [Any]
            #expect(documents?.isEmpty == true)
        }
    }

    @Test("/health answers Gotenberg's shape, /version its API version, both without credentials")
    func healthAndVersion() async throws {
        let gateway = try await InProcessGateway { $0.auth = .tokens }
        try await gateway.run { client in
            let health = try await client.execute(uri: "/health", method: .get)
            #expect(health.status == .ok)
            #expect(health.json["status"] as? String == "up")
            let details = health.json["details"] as? [String: [String: Any]]
            #expect(details?["chromium"]?["status"] as? String == "up" && details?["libreoffice"]?["status"] as? String == "up", "\(health.json)")
            let version = try await client.execute(uri: "/version", method: .get)
            #expect(String(buffer: version.body) == GotenbergController.apiVersion)
            let probe = try await client.execute(uri: "/health", method: .head)
            #expect(probe.status == .ok && probe.body.readableBytes == 0)
            #expect(try await client.execute(uri: "/favicon.ico", method: .get).status == .noContent)
            // The forms need credentials: Gotenberg's plain 401.
            let form = try await Self.post(client, "/forms/libreoffice/convert", [.file("files", path: Fixtures.office("sample.docx"))])
            #expect(form.status == .unauthorized && String(buffer: form.body) == "Unauthorized")
            let metrics = try await client.execute(uri: "/prometheus/metrics", method: .get)
            #expect(metrics.status == .unauthorized, "behind the credentials, as Gotenberg's basic auth has it")
        }
    }

    @Test("/prometheus/metrics is Gotenberg's four gauges, exactly: the engine's queues and the warm slots' restarts")
    func prometheusMetrics() async throws {
        let gateway = try await InProcessGateway { $0.urlAllowList = ["127.0.0.1:9"] }
        try await gateway.run { client in
            let fresh = try await client.execute(uri: "/prometheus/metrics", method: .get)
            #expect(fresh.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8; escaping=underscores")
            #expect(
                String(buffer: fresh.body) == """
                    # HELP gotenberg_chromium_requests_queue_size Current number of Chromium conversion requests waiting to be treated.
                    # TYPE gotenberg_chromium_requests_queue_size gauge
                    gotenberg_chromium_requests_queue_size 0
                    # HELP gotenberg_chromium_restarts_count Current number of Chromium restarts.
                    # TYPE gotenberg_chromium_restarts_count gauge
                    gotenberg_chromium_restarts_count 0
                    # HELP gotenberg_libreoffice_requests_queue_size Current number of LibreOffice conversion requests waiting to be treated.
                    # TYPE gotenberg_libreoffice_requests_queue_size gauge
                    gotenberg_libreoffice_requests_queue_size 0
                    # HELP gotenberg_libreoffice_restarts_count Current number of LibreOffice restarts.
                    # TYPE gotenberg_libreoffice_restarts_count gauge
                    gotenberg_libreoffice_restarts_count 0

                    """,
                "\(String(buffer: fresh.body))"
            )
            // The engine does not run here: a URL job waits in the queue Chromium would take it from.
            let created = try await client.execute(
                uri: "/v1/jobs",
                method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"type":"URL_TO_PDF","url":"http://127.0.0.1:9/"}"#)
            )
            #expect(created.status == .created, "\(created.json)")
            let queued = String(buffer: try await client.execute(uri: "/prometheus/metrics", method: .get).body)
            #expect(queued.contains("gotenberg_chromium_requests_queue_size 1\n") && queued.contains("gotenberg_libreoffice_requests_queue_size 0\n"))
        }
        let restarted = try await GotenbergMetrics(engine: gateway.engine, restarts: { (2, 1) }).render()
        #expect(restarted.contains("gotenberg_chromium_restarts_count 2\n") && restarted.contains("gotenberg_libreoffice_restarts_count 1\n"))
    }
}

/// Gotenberg's settings a migrating user sets: its root path, and modules turned off.
@Suite("Gotenberg's root path and modules")
struct GotenbergSettingsTests {
    @Test("--gotenberg-root-path mounts the routes under it; modules left out answer 404, and webhook headers are then ignored")
    func rootPathAndModules() async throws {
        var configuration = ServerConfiguration()
        try configuration.setGotenbergRootPath("/gotenberg", from: "test")
        try configuration.setGotenbergAPI("pdfengines,libreoffice", from: "test")
        #expect(configuration.gotenbergRootPath == "/gotenberg/")
        #expect(configuration.gotenbergModules == [.pdfengines, .libreoffice])
        #expect(throws: ConfigurationError.self) { try configuration.setGotenbergAPI("chromium,screenshots", from: "test") }
        #expect(throws: ConfigurationError.self) { try configuration.setGotenbergRootPath("gotenberg//x", from: "test") }
        let settings = configuration
        let gateway = try await InProcessGateway {
            $0.gotenbergRootPath = settings.gotenbergRootPath
            $0.gotenbergModules = settings.gotenbergModules
        }
        try await gateway.run(converting: true) { client in
            #expect(try await client.execute(uri: "/gotenberg/health", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/gotenberg/version", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/health", method: .get).status == .notFound, "not at the root any more")
            let health = try await client.execute(uri: "/gotenberg/health", method: .get).json["details"] as? [String: Any]
            #expect(health?.keys.sorted() == ["libreoffice"], "only the modules that answer: \(String(describing: health))")
            // A webhook header without the webhook module: the answer is the PDF itself.
            let merged = try await GotenbergAPITests.post(
                client,
                "/gotenberg/forms/pdfengines/merge",
                [.file("files", path: Fixtures.pdf("one-page.pdf"))],
                headers: [.gotenbergWebhookURL: "http://127.0.0.1:9/hook"]
            )
            #expect(merged.status == .ok && merged.headers[.contentType] == "application/pdf", "\(merged.status)")
            let chromium = try await GotenbergAPITests.post(client, "/gotenberg/forms/chromium/convert/url", [.text("url", "https://example.com")])
            #expect(chromium.status == .notFound)
            #expect(try await client.execute(uri: "/gotenberg/prometheus/metrics", method: .get).status == .notFound)
        }
    }

    @Test("GET / is Gotenberg's words for an API client and our page for a browser; /debug answers only when turned on")
    func rootAndDebug() async throws {
        let plain = try await InProcessGateway()
        try await plain.run { client in
            let api = try await client.execute(uri: "/", method: .get)
            #expect(api.status == .ok && api.headers[.contentType] == "text/html; charset=UTF-8")
            #expect(String(buffer: api.body).hasPrefix("Hey, Gotenberg has no UI, it's an API."), "\(String(buffer: api.body))")
            let browser = try await client.execute(uri: "/", method: .get, headers: [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"])
            #expect(browser.status == .ok && String(buffer: browser.body).contains("<script"), "a browser gets the web page")
            #expect(api.headers[.vary] == "Accept" && browser.headers[.vary] == "Accept", "caches keep the two apart")
            #expect(try await client.execute(uri: "/debug", method: .get).status == .notFound, "off unless asked for, as in Gotenberg")
        }
        let loaded = try ServerConfiguration.load(file: nil, environment: ["PDFGATE_GOTENBERG_DEBUG_ROUTE": "true"])
        #expect(loaded.gotenbergDebugRoute)
        let debugging = try await InProcessGateway {
            $0.gotenbergDebugRoute = true
            $0.gotenbergRootPath = "/foo/"
            $0.urlPatterns = try! URLPatterns(deny: ["^http://blocked\\."])
        }
        try await debugging.run { client in
            let debug = try await client.execute(uri: "/foo/debug", method: .get)
            #expect(debug.status == .ok && debug.headers[.contentType] == "application/json")
            let json = debug.json
            #expect(json["version"] as? String == GotenbergController.apiVersion)
            #expect((json["timezone"] as? String)?.isEmpty == false && (json["architecture"] as? String)?.isEmpty == false)
            let modules = json["modules"] as? [String] ?? []
            #expect(["api", "chromium", "libreoffice", "pdfengines", "prometheus", "qpdf", "webhook"].allSatisfy(modules.contains), "\(modules)")
            // The tools' versions are what they print here, asked of the real binaries.
            let qpdf = try await run("/usr/bin/qpdf", ["--version"]).stdout.split(separator: "\n").first.map(String.init)
            let extra = json["modules_additional_data"] as? [String: [String: String]]
            #expect(extra?["qpdf"]?["version"] == qpdf, "\(String(describing: extra))")
            #expect(extra?["chromium"]?["version"]?.contains("Chromium") == true, "\(String(describing: extra))")
            let flags = json["flags"] as? [String: String]
            #expect(flags?["api-root-path"] == "/foo/" && flags?["chromium-deny-list"] == "[^http://blocked\\.]", "\(String(describing: flags))")
            #expect(flags?["api-enable-debug-route"] == "true" && flags?["chromium-allow-list"] == "[.+]")
            // Under a root path of its own, Gotenberg's root is Gotenberg's; ours stays the page.
            let root = try await client.execute(uri: "/foo/", method: .get, headers: [.accept: "text/html"])
            #expect(root.status == .ok && String(buffer: root.body).hasPrefix("Hey, Gotenberg"))
            #expect(try await client.execute(uri: "/foo/favicon.ico", method: .get).status == .noContent)
            #expect(String(buffer: try await client.execute(uri: "/", method: .get).body).contains("<script"))
        }
    }

    @Test("--gotenberg-api off (here from the environment) leaves no Gotenberg route; ours answer on")
    func off() async throws {
        let loaded = try ServerConfiguration.load(file: nil, environment: ["PDFGATE_GOTENBERG_API": "off"])
        #expect(!loaded.gotenbergAPI && loaded.gotenbergModules.isEmpty)
        let gateway = try await InProcessGateway { $0.gotenbergModules = loaded.gotenbergModules }
        try await gateway.run { client in
            #expect(try await client.execute(uri: "/health", method: .get).status == .notFound)
            let form = try await GotenbergAPITests.post(client, "/forms/pdfengines/merge", [.file("files", path: Fixtures.pdf("one-page.pdf"))])
            #expect(form.status == .notFound)
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }
}
