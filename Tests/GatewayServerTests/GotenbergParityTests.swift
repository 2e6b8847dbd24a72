import Foundation
import GatewayTestSupport
import GatewayURLSecurity
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayGotenbergAPI
@testable import GatewayServer
@testable import GatewaySettings

/// Where Gotenberg is lenient the door is too and says so (`Pdfgate-Warning`), its
/// words are Gotenberg's, its trace is on every answer, its credentials and queue are its own.
@Suite("Gotenberg parity")
struct GotenbergParityTests {
    static func post(_ client: some TestClientProtocol, _ path: String, _ parts: [FormPart], headers: HTTPFields = [:]) async throws -> TestResponse {
        try await GotenbergAPITests.post(client, path, parts, headers: headers)
    }

    /// An HTML page written into `directory` as `index.html`.
    static func page(_ html: String, in directory: TemporaryDirectory) throws -> FormPart {
        let path = directory.file("index-\(UUID().uuidString).html")
        try html.write(toFile: path, atomically: true, encoding: .utf8)
        return .named("files", path: path, filename: "index.html")
    }

    static func warnings(_ answer: TestResponse) -> [String] { answer.headers[values: .pdfgateWarning] }

    @Test("Gotenberg-Trace (or the header --api-trace-header names) on every route, refusals and the root included")
    func traceEverywhere() async throws {
        let gateway = try await InProcessGateway {
            $0.gotenbergTraceHeader = "X-Request-Id"
            $0.prometheusNamespace = "acme"
            $0.prometheusMetricsPath = "/internal/metrics"
        }
        try await gateway.run { client in
            let name = HTTPField.Name("X-Request-Id")!
            for (method, uri) in [
                (HTTPRequest.Method.get, "/version"), (.get, "/health"), (.head, "/health"), (.get, "/"), (.get, "/favicon.ico"),
                (.get, "/internal/metrics"), (.post, "/forms/pdfengines/merge"),
            ] {
                let echoed = try await client.execute(uri: uri, method: method, headers: [name: "trace-\(uri)"])
                #expect(echoed.headers[name] == "trace-\(uri)", "\(method) \(uri) echoes the trace: \(echoed.headers)")
                let made = try await client.execute(uri: uri, method: method)
                #expect(made.headers[name].map { UUID(uuidString: $0) != nil } == true, "\(method) \(uri) makes one: \(made.headers)")
            }
            let metrics = try await client.execute(uri: "/internal/metrics", method: .get)
            #expect(String(buffer: metrics.body).contains("acme_chromium_requests_queue_size 0"), "\(String(buffer: metrics.body))")
            #expect(try await client.execute(uri: "/prometheus/metrics", method: .get).status == .notFound, "moved by --prometheus-metrics-path")
        }
    }

    @Test("Gotenberg's Basic-auth credentials open its routes and /v1, as one owner; anything else is 401")
    func basicAuth() async throws {
        let gateway = try await InProcessGateway { $0.basicAuth = BasicCredentials(username: "paperless", password: "s3cret") }
        try await gateway.run(converting: true) { client in
            let good: HTTPFields = [.authorization: "Basic " + Data("paperless:s3cret".utf8).base64EncodedString()]
            let wrong: HTTPFields = [.authorization: "Basic " + Data("paperless:nope".utf8).base64EncodedString()]
            let form = [FormPart.file("files", path: Fixtures.pdf("one-page.pdf"))]
            let anonymous = try await Self.post(client, "/forms/pdfengines/merge", form)
            #expect(anonymous.status == .unauthorized && String(buffer: anonymous.body) == "Unauthorized")
            #expect(try await Self.post(client, "/forms/pdfengines/merge", form, headers: wrong).status == .unauthorized)
            #expect(try await client.execute(uri: "/v1/jobs", method: .get).status == .unauthorized)
            let merged = try await Self.post(client, "/forms/pdfengines/merge", form, headers: good)
            #expect(merged.status == .ok, "\(String(buffer: merged.body))")
            let jobs = try await client.execute(uri: "/v1/jobs", method: .get, headers: good)
            #expect(jobs.status == .ok)
            #expect((jobs.json["jobs"] as? [[String: Any]])?.count == 1, "the merge is the owner's job: \(jobs.json)")
        }
    }

    @Test("LibreOffice: page ranges past the end print the pages that exist, quality beside lossless is dropped; both said")
    func officeLeniency() async throws {
        let gateway = try await InProcessGateway()
        let scratch = TemporaryDirectory("gotenberg-leniency")
        try await gateway.run(converting: true) { client in
            let whole = try await Self.post(client, "/forms/libreoffice/convert", [.file("files", path: Fixtures.office("sample.docx"))])
            let pages = try #require(try await GotenbergAPITests.pages(whole, in: scratch))
            let answer = try await Self.post(
                client,
                "/forms/libreoffice/convert",
                [
                    .file("files", path: Fixtures.office("sample.docx")), .text("nativePageRanges", "1-\(pages + 3)"),
                    .text("losslessImageCompression", "true"), .text("quality", "90"),
                ]
            )
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            #expect(try await GotenbergAPITests.pages(answer, in: scratch) == pages)
            let said = Self.warnings(answer)
            #expect(said.contains("quality 90 ignored: losslessImageCompression keeps images lossless, as on Gotenberg"), "\(said)")
            let range = pages + 1 == pages + 3 ? "page \(pages + 1)" : "pages \(pages + 1)-\(pages + 3)"
            #expect(said.contains("nativePageRanges '1-\(pages + 3)': \(range) past the end of sample.docx, left out as Gotenberg does"), "\(said)")
            // A range with no page in the document is still refused, in words naming it.
            let none = try await Self.post(
                client,
                "/forms/libreoffice/convert",
                [.file("files", path: Fixtures.office("sample.docx")), .text("nativePageRanges", "\(pages + 5)")]
            )
            #expect(none.status == .badRequest, "\(String(buffer: none.body))")
        }
    }

    @Test("Gotenberg's other LibreOffice fields reach LibreOffice's export; bad values in its words; /v1 names LibreOffice's settings")
    func libreOfficeExportSettings() async throws {
        let gateway = try await InProcessGateway()
        let scratch = TemporaryDirectory("gotenberg-lo-export")
        try await gateway.run(converting: true) { client in
            let marked = try await Self.post(
                client,
                "/forms/libreoffice/convert",
                [
                    .file("files", path: Fixtures.office("sample.odt")), .text("nativeWatermarkText", "CONFIDENTIAL"),
                    .text("initialView", "1"), .text("skipEmptyPages", "true"), .text("openBookmarkLevels", "-1"),
                ]
            )
            #expect(marked.status == .ok, "\(String(buffer: marked.body))")
            let path = scratch.file("marked.pdf")
            try Data(marked.body.readableBytesView).write(to: URL(fileURLWithPath: path))
            #expect(try await run("/usr/bin/pdftotext", [path, "-"]).stdout.contains("CONFIDENTIAL"), "LibreOffice drew its watermark")
            // InitialView 1: the viewer opens with the outline shown (/PageMode /UseOutlines).
            let catalog = try await run("/usr/bin/qpdf", ["--json", "--json-key=qpdf", path]).stdout
            #expect(catalog.contains("/UseOutlines"), "the catalog's page mode")

            let bad = try await Self.post(
                client,
                "/forms/libreoffice/convert",
                [.file("files", path: Fixtures.office("sample.odt")), .text("initialView", "5"), .text("openBookmarkLevels", "11")]
            )
            #expect(
                String(buffer: bad.body)
                    == "Invalid form data: form field 'initialView' is invalid (got '5', resulting to value is not 0, 1 or 2)\n"
                    + "form field 'openBookmarkLevels' is invalid (got '11', resulting to value is not -1 or between 1 and 10)"
            )
            let strict = try await client.execute(
                uri: "/v1/jobs",
                method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(
                    string: #"{"type":"DOC_TO_PDF","original_filename":"a.docx","options":{"libreoffice_export":{"IsSkipEmptyPage":true}}}"#
                )
            )
            #expect(strict.status == .unprocessableContent || strict.status == .badRequest, "\(strict.json)")
            #expect((strict.json["error_message"] as? String)?.contains("has no setting 'IsSkipEmptyPage'") == true, "\(strict.json)")
        }
    }

    @Test("an uploaded page is judged by the Chromium lists as Gotenberg's file:///tmp/… URL: a list that refuses it answers 403")
    func uploadedPageUnderTheLists() async throws {
        let scratch = TemporaryDirectory("gotenberg-lists")
        for (deny, only, expected) in [([], [#"^file:(?!//\/tmp/).*"#], 403), ([#"^file:///tmp.*"#], [], 403), ([#"^file:(?!//\/tmp/).*"#], [], 200)]
        {
            let patterns = try URLPatterns().adding(deny: deny, only: only, for: .page)
            let gateway = try await InProcessGateway { $0.urlPatterns = patterns }
            try await gateway.run(converting: true) { client in
                let answer = try await Self.post(client, "/forms/chromium/convert/html", [try Self.page("<p>Listed</p>", in: scratch)])
                #expect(answer.status.code == expected, "deny \(deny) only \(only): \(String(buffer: answer.body))")
                if expected == 403 { #expect(String(buffer: answer.body) == "Forbidden") }
            }
        }
    }

    @Test("PDF/A-3b with PDF/UA-1 and metadata: the metadata is written after LibreOffice's re-export, whole, and the tags stay")
    func metadataAfterPDFUA() async throws {
        let gateway = try await InProcessGateway()
        let scratch = TemporaryDirectory("gotenberg-pdfua-metadata")
        try await gateway.run(converting: true) { client in
            let answer = try await Self.post(
                client,
                "/forms/chromium/convert/html",
                [
                    try Self.page("<h1>Page 1</h1>", in: scratch), .text("pdfa", "PDF/A-3b"), .text("pdfua", "true"),
                    .text("metadata", #"{"Copyright":"Julien Neuhart","Producer":"Gotenberg","Marked":true,"Trapped":"Unknown","Title":"Sample"}"#),
                ]
            )
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            let pdf = scratch.file("pdfua.pdf")
            try Data(buffer: answer.body).write(to: URL(fileURLWithPath: pdf))
            let read = try await Self.post(client, "/forms/pdfengines/metadata/read", [.named("files", path: pdf, filename: "foo.pdf")])
            let tags = (try JSONSerialization.jsonObject(with: Data(buffer: read.body)) as? [String: Any])?["foo.pdf"] as? [String: Any]
            #expect(tags?["Copyright"] as? String == "Julien Neuhart" && tags?["Producer"] as? String == "Gotenberg", "\(tags ?? [:])")
            #expect(tags?["Trapped"] as? String == "Unknown" && tags?["Marked"] as? Bool == true, "\(tags ?? [:])")
            let structure = try await run("/usr/bin/pdfinfo", ["-struct", pdf])
            #expect(structure.stdout.contains("H1") || structure.stdout.contains("P"), "tagged still: \(structure.stdout.prefix(200))")
        }
    }

    @Test("a split's pages past the end are left out and said; /v1 refuses the same split by name")
    func splitLeniency() async throws {
        let gateway = try await InProcessGateway()
        let scratch = TemporaryDirectory("gotenberg-split")
        let engine = gateway.engine
        try await gateway.run(converting: true) { client in
            let answer = try await Self.post(
                client,
                "/forms/chromium/convert/html",
                [try Self.page("<p>One page</p>", in: scratch), .text("splitMode", "pages"), .text("splitSpan", "1,2")]
            )
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            #expect(try await GotenbergAPITests.pages(answer, in: scratch) == 1)
            #expect(Self.warnings(answer) == ["splitSpan '1,2': page 2 past the end of index.html, left out as Gotenberg does"], "\(answer.headers)")
            // Chromium's PDF goes by Gotenberg-Output-Filename (its last segment, a Windows
            // path's too), so its parts are foo_0.pdf, foo_1.pdf in foo.zip.
            let named = try await Self.post(
                client,
                "/forms/chromium/convert/html",
                [
                    try Self.page("<p>One</p><p style='break-before: page'>Two</p>", in: scratch), .text("splitMode", "intervals"),
                    .text("splitSpan", "1"),
                ],
                headers: [HTTPField.Name("Gotenberg-Output-Filename")!: #"C:\Windows\Temp\foo"#]
            )
            #expect(named.status == .ok, "\(String(buffer: named.body))")
            #expect(GotenbergPDFEnginesTests.filename(named) == "foo.zip")
            #expect(try GotenbergPDFEnginesTests.entries(named).map(\.name) == ["foo_0.pdf", "foo_1.pdf"])
            let rotated = try await Self.post(
                client,
                "/forms/pdfengines/rotate",
                [.file("files", path: Fixtures.pdf("one-page.pdf")), .text("rotateAngle", "90"), .text("rotatePages", "1-3")]
            )
            #expect(rotated.status == .ok, "a rotation's pages past the end are left out too: \(String(buffer: rotated.body))")

            // /v1 keeps its named refusal: the same split, as a one-shot job's operation.
            let operations = #"[{"op":"split","pages":"1,2"}]"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let job = try await client.execute(
                uri: "/v1/jobs?filename=one.pdf&operations=\(operations)",
                method: .post,
                headers: [.contentType: "application/octet-stream"],
                body: ByteBuffer(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf")))))
            )
            let created = try #require(job.json["job_id"] as? String, "\(job.json)")
            let ended = try await engine.finished(created)
            #expect(ended.state.failure?.code == "page_range_out_of_bounds", "/v1 stays strict: \(String(describing: ended.state.failure))")
        }
    }

    @Test("Gotenberg's words: resources that fail, a main page's status, an expression that is not a boolean, bad JSON")
    func words() async throws {
        let served = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(status: 404, text: "gone")
        }
        defer { served.stop() }
        let gateway = try await InProcessGateway { $0.urlAllowList = ["127.0.0.1:\(served.port)"] }
        let scratch = TemporaryDirectory("gotenberg-words")
        try await gateway.run(converting: true) { client in
            let failed = try await Self.post(
                client,
                "/forms/chromium/convert/html",
                [try Self.page(#"<img src="http://127.0.0.1:9/x.png"><p>x</p>"#, in: scratch), .text("failOnResourceLoadingFailed", "true")]
            )
            #expect(failed.status == .conflict)
            #expect(
                String(buffer: failed.body).hasPrefix("Chromium failed to load resources: resource Image: net::"),
                "\(String(buffer: failed.body))"
            )

            let status = try await Self.post(
                client,
                "/forms/chromium/convert/url",
                [.text("url", served.url("/missing")), .text("failOnHttpStatusCodes", "[404]")]
            )
            #expect(status.status == .conflict)
            #expect(String(buffer: status.body).hasPrefix("Invalid HTTP status code from the main page: 404"), "\(String(buffer: status.body))")

            let undefined = try await Self.post(
                client,
                "/forms/chromium/convert/html",
                [try Self.page("<p>x</p>", in: scratch), .text("waitForExpression", "window.nothingHere")]
            )
            #expect(undefined.status == .badRequest)
            #expect(String(buffer: undefined.body) == "The expression 'window.nothingHere' (waitForExpression) returned an exception or undefined")

            let json = try await Self.post(
                client,
                "/forms/chromium/convert/html",
                [try Self.page("<p>x</p>", in: scratch), .text("failOnHttpStatusCodes", "[499,"), .text("landscape", "yes")]
            )
            #expect(
                String(buffer: json.body)
                    == "Invalid form data: form field 'failOnHttpStatusCodes' is invalid (got '[499,', resulting to unmarshal failOnHttpStatusCodes: unexpected end of JSON input)\n"
                    + "form field 'landscape' is invalid (got 'yes', resulting to strconv.ParseBool: parsing \"yes\": invalid syntax)",
                "in the order Gotenberg reads its fields"
            )
            // A file the upload lacks is what Gotenberg's file:// page meets: a failed load, not a 404.
            let lacking = "<link rel='stylesheet' href='doesnotexist.css'><p>x</p>"
            let notAStatus = try await Self.post(
                client,
                "/forms/chromium/convert/html",
                [try Self.page(lacking, in: scratch), .text("failOnResourceHttpStatusCodes", "[499,599]")]
            )
            #expect(notAStatus.status == .ok, "\(String(buffer: notAStatus.body))")
            let failedLoad = try await Self.post(
                client,
                "/forms/chromium/convert/html",
                [try Self.page(lacking, in: scratch), .text("failOnResourceLoadingFailed", "true")]
            )
            #expect(
                failedLoad.status == .conflict
                    && String(buffer: failedLoad.body) == "Chromium failed to load resources: resource Stylesheet: net::ERR_FILE_NOT_FOUND",
                "\(String(buffer: failedLoad.body))"
            )
            // Chromium's refusals in Gotenberg's words, once the form parsed.
            for (fields, words) in [
                ([("omitBackground", "true")], "omitBackground requires printBackground set to true"),
                ([("nativePageRanges", "foo")], "Chromium does not handle the page ranges 'foo' (nativePageRanges) syntax"),
                (
                    [("extraHttpHeaders", #"{"foo":"bar;scope;;"}"#)],
                    #"Invalid form data: form field 'extraHttpHeaders' is invalid (got '{"foo":"bar;scope;;"}', resulting to invalid scope '' for header 'foo')"#
                ),
                (
                    [("extraHttpHeaders", #"{"foo":"bar;scope=*."}"#)],
                    #"Invalid form data: form field 'extraHttpHeaders' is invalid (got '{"foo":"bar;scope=*."}', resulting to invalid scope regex pattern for header 'foo': error parsing regexp: missing argument to repetition operator in `*.`)"#
                ),
            ] {
                let refused = try await Self.post(
                    client,
                    "/forms/chromium/convert/html",
                    [try Self.page("<p>x</p>", in: scratch)] + fields.map { FormPart.text($0.0, $0.1) }
                )
                #expect(refused.status == .badRequest && String(buffer: refused.body) == words, "\(String(buffer: refused.body))")
            }
            let ranges = try await Self.post(
                client,
                "/forms/chromium/convert/html",
                [try Self.page("<p>x</p>", in: scratch), .text("nativePageRanges", "2-3")]
            )
            #expect(ranges.status == .badRequest)
            #expect(
                String(buffer: ranges.body) == "The page ranges '2-3' (nativePageRanges) exceeds the page count",
                "Chromium stays strict, as there"
            )
        }
    }

    @Test("cookies reach the page's server; a download carries the request's trace and traceparent")
    func cookiesAndTraceparent() async throws {
        let seen = Locked<[String: String]>([:])
        let pdf = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
        let served = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            if request.path == "/report.pdf" {
                seen.update {
                    $0["traceparent"] = request.header("traceparent")
                    $0["trace"] = request.header("Gotenberg-Trace")
                }
                try response.respond(
                    status: 200,
                    headers: [("Content-Type", "application/pdf"), ("Content-Disposition", #"attachment; filename="report.pdf""#)],
                    body: pdf
                )
            } else {
                let cookie = request.header("Cookie") ?? "no cookie"
                try response.respond(status: 200, headers: [("Content-Type", "text/html")], text: "<p>The server saw \(cookie)</p>")
            }
        }
        defer { served.stop() }
        let gateway = try await InProcessGateway { $0.urlAllowList = ["127.0.0.1:\(served.port)"] }
        let scratch = TemporaryDirectory("gotenberg-cookies")
        try await gateway.run(converting: true) { client in
            let answer = try await Self.post(
                client,
                "/forms/chromium/convert/url",
                [
                    .text("url", served.url("/page")),
                    .text("cookies", #"[{"name":"session","value":"abc123","domain":"127.0.0.1","sameSite":"lax"}]"#),
                ]
            )
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            let path = scratch.file("cookie.pdf")
            try Data(answer.body.readableBytesView).write(to: URL(fileURLWithPath: path))
            #expect(try await run("/usr/bin/pdftotext", [path, "-"]).stdout.contains("session=abc123"))
            let refused = try await Self.post(
                client,
                "/forms/chromium/convert/url",
                [.text("url", served.url("/page")), .text("cookies", #"[{"name":"session","value":"abc"}]"#)]
            )
            #expect(String(buffer: refused.body).contains("cookie 0 must have its name, value and domain set"), "\(String(buffer: refused.body))")

            let parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
            let merged = try await Self.post(
                client,
                "/forms/pdfengines/merge",
                [.text("downloadFrom", #"[{"url":"\#(served.url("/report.pdf"))"}]"#)],
                headers: [.gotenbergTrace: "trace-77", .traceparent: parent]
            )
            #expect(merged.status == .ok, "\(String(buffer: merged.body))")
            let sent = seen.value
            #expect(sent["trace"] == "trace-77")
            let parts = (sent["traceparent"] ?? "").split(separator: "-").map(String.init)
            #expect(parts.count == 4 && parts[1] == "4bf92f3577b34da6a3ce929d0e0e4736" && parts[3] == "01", "the same trace: \(sent)")
            #expect(parts.count == 4 && parts[2] != "00f067aa0ba902b7" && parts[2].count == 16, "a span of its own: \(sent)")
        }
    }

    @Test("over the owner's limits a request waits for room, as in Gotenberg's queue: 503 at its timeout, 429 past max-queue-size")
    func queue() async throws {
        let scratch = TemporaryDirectory("gotenberg-queue")
        let form = [try Self.page("<p>Queued</p>", in: scratch)]
        // A /v1 job waiting for its upload holds the owner's one place.
        let holdThePlace: @Sendable (any TestClientProtocol) async throws -> String = { client in
            let held = try await client.execute(
                uri: "/v1/jobs",
                method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"type":"DOC_TO_PDF","original_filename":"later.docx"}"#)
            )
            return try #require(held.json["job_id"] as? String, "\(held.json)")
        }
        let short = try await InProcessGateway {
            $0.maxActiveJobsPerOwner = 1
            $0.gotenbergTimeout = .seconds(2)
        }
        try await short.run { client in
            _ = try await holdThePlace(client)
            let timedOut = try await Self.post(client, "/forms/chromium/convert/html", form)
            #expect(timedOut.status == .serviceUnavailable, "\(String(buffer: timedOut.body))")
            #expect(String(buffer: timedOut.body) == GotenbergError.timedOut.message)
        }
        let gateway = try await InProcessGateway {
            $0.maxActiveJobsPerOwner = 1
            $0.gotenbergTimeout = .seconds(90)
            $0.gotenbergQueueSizes = [.chromium: 1]
        }
        try await gateway.run(converting: true) { client in
            let holder = try await holdThePlace(client)
            async let waiting = Self.post(client, "/forms/chromium/convert/html", form)
            try await eventually("the first request waits in Chromium's queue", poll: .milliseconds(50)) {
                let metrics = try await client.execute(uri: "/prometheus/metrics", method: .get)
                return String(buffer: metrics.body).contains("gotenberg_chromium_requests_queue_size 1")
            }
            let full = try await Self.post(client, "/forms/chromium/convert/html", form)
            #expect(full.status == .tooManyRequests, "past --chromium-max-queue-size: \(String(buffer: full.body))")
            _ = try await client.execute(uri: "/v1/jobs/\(holder)", method: .delete)
            let admitted = try await waiting
            #expect(admitted.status == .ok, "room came: \(String(buffer: admitted.body))")
        }
        // Limits the operator set are answers, as on /v1.
        let strict = try await InProcessGateway {
            $0.maxActiveJobsPerOwner = 1
            $0.ownerLimitsSet = true
        }
        try await strict.run { client in
            _ = try await client.execute(
                uri: "/v1/jobs",
                method: .post,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"type":"DOC_TO_PDF","original_filename":"later.docx"}"#)
            )
            let refused = try await Self.post(client, "/forms/pdfengines/merge", [.file("files", path: Fixtures.pdf("one-page.pdf"))])
            #expect(refused.status == .tooManyRequests, "\(String(buffer: refused.body))")
        }
    }
}
