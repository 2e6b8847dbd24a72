import Foundation
import GatewayJobModel
import GatewayTestSupport
import GatewayURLSecurity
import Synchronization
import Testing

@testable import GatewayLocalConverters

/// Gotenberg 8's Chromium options on the local backend, each judged on the PDF it makes (or the
/// failure it causes), with pages served on 127.0.0.1 and uploaded HTML alike. One warm converter
/// prints every test's pages, as the gateway's would; its URL jobs may reach loopback's ports,
/// where each test serves its pages (the address rules have suites of their own).
extension LocalConverterTests {
    @Suite(.serialized, .oneConverter(LocalConverter.Configuration(urlGuard: URLGuard(check: URLCheck(allowList: ["127.0.0.1"])))))
    struct ChromiumOptions {
        // MARK: - Waiting

        /// Content a script adds 1.5 s after the page loaded.
        static let lateContent = """
            <!DOCTYPE html><html><head><title>late</title></head><body><p>EARLY</p><script>
            setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'LATE-CONTENT';
            document.body.append(p); window.done = true; }, 1500);
            </script></body></html>
            """

        @Test func waitForSelectorPrintsContentAddedLater() async throws {
            let site = try serve({ _ in (200, Self.lateContent) })
            defer { site.stop() }
            try await withConverter(reaching: [site.port]) { converter in
                let plain = try await text(try await convert(converter, site.url("/")))
                #expect(plain.contains("EARLY") && !plain.contains("LATE-CONTENT"), "without waiting, too early")
                var options = ConversionOptions()
                options.browser.waitForSelector = "#late"
                let printed = try await text(try await convert(converter, site.url("/"), options))
                #expect(printed.contains("LATE-CONTENT"))
            }
        }

        @Test func waitForExpressionPrintsOnceItIsTruthy() async throws {
            var options = ConversionOptions()
            options.browser.waitForExpression = "window.done === true"
            let site = try serve({ _ in (200, Self.lateContent) })
            defer { site.stop() }
            try await withConverter(reaching: [site.port]) { converter in
                let plain = try await text(try await convert(converter, site.url("/")))
                #expect(!plain.contains("LATE-CONTENT"), "without waiting, too early")
                let waited = try await text(try await convert(converter, site.url("/"), options))
                #expect(waited.contains("LATE-CONTENT"))
            }
            // Uploaded HTML too, on the real clock (its timers would otherwise be fast-forwarded).
            #expect(try await text(try await convertHTML(Self.lateContent, options)).contains("LATE-CONTENT"))
        }

        @Test func waitDelayGivesThePageTime() async throws {
            var options = ConversionOptions()
            options.browser.waitDelay = 2.5
            let site = try serve({ _ in (200, Self.lateContent) })
            defer { site.stop() }
            try await withConverter(reaching: [site.port]) { converter in
                let start = ContinuousClock.now
                let output = try await convert(converter, site.url("/"), options)
                #expect(seconds(since: start) >= 2.5)
                #expect(try await text(output).contains("LATE-CONTENT"))
            }
        }

        @Test func aWaitThatNeverEndsFailsTheJobNamingIt() async throws {
            var options = ConversionOptions()
            options.browser.waitForSelector = "#never"
            let failure = try await conversionFailure(html: "<p>nothing comes</p>", options, timeout: .seconds(8))
            #expect(failure.code == "wait_timed_out" && failure.kind == .timedOut, "\(failure)")
            #expect(failure.message.contains("wait_for_selector \"#never\""), "\(failure.message)")

            options.browser.waitForSelector = nil
            options.browser.waitForExpression = "nope("
            let broken = try await conversionFailure(html: "<p>x</p>", options)
            #expect(broken.code == "invalid_wait_for_expression" && broken.kind == .rejected && broken.message.contains("SyntaxError"), "\(broken)")
        }

        // MARK: - What the page is sent

        @Test func extraHeadersReachThePagesOriginAndNoOther() async throws {
            let other = Recorder()
            let cdn = try LoopbackHTTPServer { request, response in
                other.note(request)
                try response.respond(
                    status: 200,
                    headers: [("Content-Type", "image/svg+xml")],
                    text: #"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>"#
                )
            }
            defer { cdn.stop() }
            let page = """
                <!DOCTYPE html><html><body><p>AUTHORIZED</p><img src="\(cdn.url("/pixel.svg"))"></body></html>
                """
            let here = Recorder()
            let site = try serve { request in
                here.note(request)
                return request.header("X-Token") == "s3cret" ? (200, page) : (403, "<p>FORBIDDEN</p>")
            }
            defer { site.stop() }
            try await withConverter(reaching: [site.port, cdn.port]) { converter in
                var options = ConversionOptions()
                options.browser.extraHTTPHeaders = ["X-Token": "s3cret"]
                let printed = try await text(try await convert(converter, site.url("/"), options))
                #expect(printed.contains("AUTHORIZED"))
                #expect(other.count > 0, "the image was fetched")
                #expect(other.headers("X-Token").isEmpty, "the header stays with the page's origin")

                // With a scope, the header goes where it says instead.
                other.reset()
                here.reset()
                options.browser.extraHTTPHeadersScope = "^http://127\\.0\\.0\\.1:\(cdn.port)/"
                let forbidden = try await text(try await convert(converter, site.url("/"), options))
                #expect(forbidden.contains("FORBIDDEN"))
                #expect(here.headers("X-Token").isEmpty)
                // The 403 page has no image; fetch one through a page that has.
                options.browser.extraHTTPHeadersScope = "^http://127\\.0\\.0\\.1:(\(cdn.port)|\(site.port))/"
                let scoped = try await text(try await convert(converter, site.url("/"), options))
                #expect(scoped.contains("AUTHORIZED"))
                #expect(other.headers("X-Token") == ["s3cret"])
            }
        }

        @Test func cookiesAreSentToThePage() async throws {
            let page: @Sendable (ReceivedRequest) -> (Int, String) = { request in
                let cookie = request.header("Cookie") ?? ""
                return cookie.contains("session=abc123") ? (200, "<p>COOKIE-OK</p>") : (403, "<p>NO-COOKIE [\(cookie)]</p>")
            }
            let site = try serve(page)
            defer { site.stop() }
            try await withConverter(reaching: [site.port]) { converter in
                let without = try await text(try await convert(converter, site.url("/")))
                #expect(without.contains("NO-COOKIE"))
                var options = ConversionOptions()
                options.browser.cookies = [.init(name: "session", value: "abc123", httpOnly: true, sameSite: .lax)]
                let printed = try await text(try await convert(converter, site.url("/"), options))
                #expect(printed.contains("COOKIE-OK"))
            }
        }

        @Test func userAgentIsWhatTheServerSees() async throws {
            let site = try serve({ request in (200, "<p>UA=\(request.header("User-Agent") ?? "-")</p>") })
            defer { site.stop() }
            try await withConverter(reaching: [site.port]) { converter in
                var options = ConversionOptions()
                options.browser.userAgent = "PdfGateTest/1.0"
                let printed = try await text(try await convert(converter, site.url("/"), options))
                #expect(printed.contains("UA=PdfGateTest/1.0"))
            }
        }

        @Test func emulatedMediaTypeScreenShowsTheScreenStyles() async throws {
            let page = """
                <!DOCTYPE html><html><head><style>
                .screen { display: none } @media screen { .screen { display: block } .print { display: none } }
                </style></head><body><p class="screen">SCREEN-MEDIA</p><p class="print">PRINT-MEDIA</p></body></html>
                """
            let printed = try await text(try await convertHTML(page))
            #expect(printed.contains("PRINT-MEDIA") && !printed.contains("SCREEN-MEDIA"), "\(printed)")
            var options = ConversionOptions()
            options.browser.emulatedMediaType = .screen
            let screen = try await text(try await convertHTML(page, options))
            #expect(screen.contains("SCREEN-MEDIA") && !screen.contains("PRINT-MEDIA"), "\(screen)")
        }

        @Test func emulatedMediaFeaturesReachThePagesMediaQueries() async throws {
            let page = """
                <!DOCTYPE html><html><head><style>
                .dark, .still { display: none }
                @media (prefers-color-scheme: dark) { .dark { display: block } .light { display: none } }
                @media (prefers-reduced-motion: reduce) { .still { display: block } }
                </style></head><body><p class="dark">DARK-SCHEME</p><p class="light">LIGHT-SCHEME</p><p class="still">REDUCED-MOTION</p></body></html>
                """
            let plain = try await text(try await convertHTML(page))
            #expect(plain.contains("LIGHT-SCHEME") && !plain.contains("DARK-SCHEME") && !plain.contains("REDUCED-MOTION"), "\(plain)")
            var options = ConversionOptions()
            options.browser.emulatedMediaFeatures = [
                .init(name: "prefers-color-scheme", value: "dark"), .init(name: "prefers-reduced-motion", value: "reduce"),
            ]
            let emulated = try await text(try await convertHTML(page, options))
            #expect(emulated.contains("DARK-SCHEME") && emulated.contains("REDUCED-MOTION") && !emulated.contains("LIGHT-SCHEME"), "\(emulated)")
        }

        @Test func javaScriptFalseRunsNoScript() async throws {
            let page = "<p id='p'>SCRIPT-DID-NOT-RUN</p><script>document.getElementById('p').textContent = 'SCRIPT-RAN'</script>"
            #expect(try await text(try await convertHTML(page)).contains("SCRIPT-RAN"))
            var options = ConversionOptions()
            options.browser.javaScript = false
            let still = try await text(try await convertHTML(page, options))
            #expect(still.contains("SCRIPT-DID-NOT-RUN") && !still.contains("SCRIPT-RAN"), "\(still)")
        }

        // MARK: - Printing

        /// Five pages, each forced onto its own.
        static let fivePages = (1...5).map { "<h1 style=\"page-break-after: always\">Section \($0)</h1>" }.joined()

        @Test func pageRangesKeepThePagesAsked() async throws {
            var options = ConversionOptions()
            options.browser.pageRanges = "2-3,5"
            let output = try await convertHTML(Self.fivePages, options)
            #expect(try await pdfinfoPageCount(output) == 3)
            let printed = try await text(output)
            #expect(printed.contains("Section 2") && printed.contains("Section 5") && !printed.contains("Section 1"), "\(printed)")

            options.browser.pageRanges = "7-9"
            let failure = try await conversionFailure(html: Self.fivePages, options)
            #expect(failure.code == "page_ranges_beyond_document" && failure.kind == .rejected, "\(failure)")
            #expect(failure.message.contains("7-9"), "\(failure.message)")
        }

        @Test func scaleShrinksTheContentOntoFewerPages() async throws {
            let long = (1...60).map { "<p style=\"font-size: 20px\">Line \($0)</p>" }.joined()
            let normal = try await pdfinfoPageCount(try await convertHTML(long)) ?? 0
            var options = ConversionOptions()
            options.browser.scale = 0.4
            let scaled = try await pdfinfoPageCount(try await convertHTML(long, options)) ?? 0
            #expect(normal >= 3 && scaled < normal, "scale 1: \(normal) pages, 0.4: \(scaled)")
        }

        @Test func singlePageIsOnePageAsTallAsTheContent() async throws {
            let tall = (1...5).map { "<div style=\"height: 1000px\">Block \($0)</div>" }.joined()
            #expect(try await pdfinfoPageCount(try await convertHTML(tall)) ?? 0 > 4)
            var options = ConversionOptions()
            options.browser.singlePage = true
            let output = try await convertHTML(tall, options)
            #expect(try await pdfinfoPageCount(output) == 1)
            let (_, height) = try await pageSize(output)
            #expect(height > 5000 * 72 / 96, "as tall as 5000 CSS px: \(height) pt")
            #expect(try await text(output).contains("Block 5"))
        }

        @Test func preferCSSPageSizeLetsThePagesAtPageRuleWin() async throws {
            let page = "<!DOCTYPE html><html><head><style>@page { size: 4in 6in }</style></head><body><p>Card</p></body></html>"
            let site = try serve({ _ in (200, page) })
            defer { site.stop() }
            try await withConverter(reaching: [site.port]) { converter in
                let (width, _) = try await pageSize(try await convert(converter, site.url("/")))
                #expect(abs(width - 612) < 2, "URL jobs default to the paper options (Letter): \(width)")
                var options = ConversionOptions()
                options.browser.preferCSSPageSize = true
                let size = try await pageSize(try await convert(converter, site.url("/"), options))
                #expect(abs(size.width - 288) < 2 && abs(size.height - 432) < 2, "4 × 6 in: \(size)")
            }
        }

        @Test func headerAndFooterTemplatesAreFilledIn() async throws {
            var options = ConversionOptions()
            options.browser.headerHTML = #"<div style="font-size: 10px">HEADER <span class="title"></span></div>"#
            options.browser.footerHTML =
                #"<div style="font-size: 10px">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>"#
            let printed = try await text(try await convertHTML("<title>Report</title>" + Self.fivePages, options))
            #expect(printed.contains("Page 1 of 5") && printed.contains("Page 5 of 5"), "\(printed)")
            #expect(printed.contains("HEADER Report"), "\(printed)")
        }

        @Test func taggedPDFIsTaggedOnlyWhenAsked() async throws {
            var options = ConversionOptions()
            // Chromium 156 tags by default; each setting must show.
            options.browser.generateTaggedPDF = false
            #expect(try await tagged(try await convertHTML("<h1>Title</h1><p>Body</p>", options)) == "no")
            options.browser.generateTaggedPDF = true
            #expect(try await tagged(try await convertHTML("<h1>Title</h1><p>Body</p>", options)) == "yes")
        }

        @Test func documentOutlineComesFromTheHeadings() async throws {
            let page = "<h1>Chapter One</h1><p>a</p><h2>Part Two</h2><p>b</p>"
            #expect(try await outlineTitles(try await convertHTML(page)).isEmpty)
            var options = ConversionOptions()
            options.browser.generateDocumentOutline = true
            let titles = try await outlineTitles(try await convertHTML(page, options))
            #expect(titles.contains("Chapter One") && titles.contains("Part Two"), "\(titles)")
        }

        /// Chromium 156 already prints no default white behind a page that paints nothing; the
        /// option makes sure (Gotenberg's issue 226) while the page's own backgrounds still print.
        @Test func omitBackgroundPaintsOnlyWhatThePageDoes() async throws {
            var options = ConversionOptions()
            options.browser.omitBackground = true
            let page = "<p>Transparent</p><div style='background:#c03;width:200px;height:50px'></div>"
            let output = try await convertHTML(page, options)
            #expect(try await text(output).contains("Transparent"))
            let work = TemporaryDirectory()
            let plain = work.file("qdf.pdf")
            #expect(try await run("qpdf", ["--qdf", "--object-streams=disable", output.path, plain]).status == 0)
            let content = String(decoding: try Data(contentsOf: URL(fileURLWithPath: plain)), as: UTF8.self)
            // Fills: the red box only (printed, since omit_background implies backgrounds), no white.
            #expect(content.contains(".8 0 .2 rg") || content.contains("0.8 0 0.2 rg"), "the page's red box is printed")
            #expect(!content.contains("1 1 1 rg"), "no white painted behind the page")
        }

        // MARK: - Failing on what the page did

        @Test func failOnHTTPStatusCodesRefusesAnErrorPage() async throws {
            let site = try serve({ _ in (404, "<p>Not here</p>") })
            defer { site.stop() }
            try await withConverter(reaching: [site.port]) { converter in
                let printed = try await text(try await convert(converter, site.url("/gone")))
                #expect(printed.contains("Not here"), "by default the page prints")
                var options = ConversionOptions()
                options.browser.failOnHTTPStatusCodes = [499]
                let failure = try await failureOf { _ = try await convert(converter, site.url("/gone"), options) }
                #expect(failure.code == "page_http_status" && failure.kind == .rejected, "\(failure)")
                #expect(failure.message.contains(site.url("/gone")) && failure.message.contains("404"), "\(failure.message)")
            }
        }

        @Test func failOnResourceHTTPStatusCodesRefusesABrokenImage() async throws {
            let page = #"<p>With image</p><img src="/missing.png">"#
            let site = try serve({ request in request.path == "/" ? (200, page) : (404, "") })
            defer { site.stop() }
            try await withConverter(reaching: [site.port]) { converter in
                let printed = try await text(try await convert(converter, site.url("/")))
                #expect(printed.contains("With image"))
                var options = ConversionOptions()
                options.browser.failOnResourceHTTPStatusCodes = [404]
                let failure = try await failureOf { _ = try await convert(converter, site.url("/"), options) }
                #expect(failure.code == "resource_http_status" && failure.kind == .rejected, "\(failure)")
                #expect(failure.message.contains("/missing.png") && failure.message.contains("404"), "\(failure.message)")
                // A domain left out of the rule: the page prints. Gotenberg's spellings name it too.
                for domain in ["127.0.0.1", "https://127.0.0.1:\(site.port)/path", "*.0.0.1"] {
                    options.browser.ignoreResourceHTTPStatusDomains = [domain]
                    let ignored = try await text(try await convert(converter, site.url("/"), options))
                    #expect(ignored.contains("With image"), "\(domain)")
                }
            }
        }

        @Test func failOnResourceLoadingFailedRefusesAnUnreachableResource() async throws {
            let closed = try StaticFileServer.freePort()
            let page = #"<p>With image</p><img src="http://127.0.0.1:\#(closed)/x.png">"#
            let site = try serve({ _ in (200, page) })
            defer { site.stop() }
            try await withConverter(reaching: [site.port] + [closed]) { converter in
                let printed = try await text(try await convert(converter, site.url("/")))
                #expect(printed.contains("With image"))
                var options = ConversionOptions()
                options.browser.failOnResourceLoadingFailed = true
                let failure = try await failureOf { _ = try await convert(converter, site.url("/"), options) }
                #expect(failure.code == "resource_load_failed" && failure.kind == .rejected, "\(failure)")
                #expect(failure.message.contains("127.0.0.1:\(closed)/x.png"), "\(failure.message)")
                // Chromium's own name for it, as the proxy saw it, not the closed connection's.
                #expect(failure.message.contains("net::ERR_CONNECTION_REFUSED"), "\(failure.message)")
            }
        }

        @Test func failOnConsoleExceptionsRefusesAThrowingPage() async throws {
            let page = "<p>Script</p><script>throw new Error('boom-4711')</script><script>throw new Error('boom-4712')</script>"
            #expect(try await text(try await convertHTML(page)).contains("Script"))
            var options = ConversionOptions()
            options.browser.failOnConsoleExceptions = true
            let failure = try await conversionFailure(html: page, options)
            #expect(failure.code == "page_console_exception" && failure.kind == .rejected, "\(failure)")
            #expect(failure.message.contains("boom-4711") && failure.message.contains("and 1 more"), "\(failure.message)")
            // Every exception is named, as Gotenberg lists them.
            #expect(failure.detail?.contains("boom-4711") == true && failure.detail?.contains("boom-4712") == true, "\(failure.detail ?? "")")
        }
    }
}

// MARK: - Helpers

/// Serves `page(request)` as HTML on 127.0.0.1 (and no favicon).
private func serve(_ page: @escaping @Sendable (ReceivedRequest) -> (Int, String)) throws -> LoopbackHTTPServer {
    try LoopbackHTTPServer { request, response in
        _ = try request.discardBody()
        let (status, html) = request.path == "/favicon.ico" ? (404, "") : page(request)
        try response.respond(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], text: html)
    }
}

/// Runs `body` with the suite's converter, whose URL jobs may reach these loopback ports (and
/// the other tests' too, which are not running).
private func withConverter(reaching ports: [Int], _ body: (LocalConverter) async throws -> Void) async throws {
    try await withSuiteConverter(body)
}

/// Prints `url`; the PDF's path.
private func convert(_ converter: LocalConverter, _ url: String, _ options: ConversionOptions = ConversionOptions()) async throws -> PrintedPDF {
    let job = JobFixture()
    try await converter.convert(job.request(.urlToPDF, .url(url), options: options), events: { _ in })
    return try keep(job)
}

/// Prints `html` as an uploaded page with the suite's converter; the PDF's path.
private func convertHTML(_ html: String, _ options: ConversionOptions = ConversionOptions()) async throws -> PrintedPDF {
    let job = JobFixture()
    let page = job.directory.file("page.html")
    try html.write(toFile: page, atomically: true, encoding: .utf8)
    try await withSuiteConverter { try await $0.convert(job.request(.docToPDF, job.file(page), options: options), events: { _ in }) }
    return try keep(job)
}

/// A printed PDF, removed when the test lets go of it.
private final class PrintedPDF: Sendable {
    let path: String
    init(_ path: String) { self.path = path }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The job's PDF moved out of its fixture, whose directory goes with it.
private func keep(_ job: JobFixture) throws -> PrintedPDF {
    let kept = FileManager.default.temporaryDirectory.path + "/pdfgate-options-\(UUID().uuidString.prefix(8)).pdf"
    try FileManager.default.moveItem(atPath: job.output, toPath: kept)
    return PrintedPDF(kept)
}

private func pdfinfoPageCount(_ pdf: PrintedPDF) async throws -> Int? {
    try await pdfinfoPageCount(pdf.path)
}

/// pdfinfo's "Tagged:" answer.
private func tagged(_ pdf: PrintedPDF) async throws -> String? { try await PDFProbe.info("Tagged", of: pdf.path) }

private func conversionFailure(html: String, _ options: ConversionOptions, timeout: Duration = .seconds(60)) async throws -> JobFailure {
    let job = JobFixture()
    let page = job.directory.file("page.html")
    try html.write(toFile: page, atomically: true, encoding: .utf8)
    let converter = try SuiteConverter.shared()
    return try await failureOf {
        try await converter.convert(job.request(.docToPDF, job.file(page), options: options, timeout: timeout), events: { _ in })
    }
}

private func failureOf(_ body: () async throws -> Void) async throws -> JobFailure {
    let error = await conversionError(body)
    return try #require(error as? JobFailure, "the job should fail: \(String(describing: error))")
}

private func text(_ pdf: PrintedPDF) async throws -> String { try await PDFProbe.text(pdf.path) }

private func pageSize(_ pdf: PrintedPDF) async throws -> (width: Double, height: Double) { try await PDFProbe.pageSize(pdf.path) }

private func outlineTitles(_ pdf: PrintedPDF) async throws -> [String] { try await PDFProbe.outlineTitles(pdf.path) }

/// Requests a loopback server saw, with their headers.
private final class Recorder: Sendable {
    private let seen = Mutex<[[String: String]]>([])

    func note(_ request: ReceivedRequest) {
        let headers = Dictionary(request.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        seen.withLock { $0.append(headers) }
    }

    var count: Int { seen.withLock { $0.count } }
    func reset() { seen.withLock { $0.removeAll() } }
    /// The values of header `name` across all requests.
    func headers(_ name: String) -> [String] { seen.withLock { $0.compactMap { $0[name.lowercased()] } } }
}
