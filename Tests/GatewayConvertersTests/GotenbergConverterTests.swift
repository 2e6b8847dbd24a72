import Foundation
import GatewayHTTPClient
import GatewayJobModel
import GatewayTestSupport
import GatewayURLSecurity
import Testing

@testable import GatewayRemoteConverters

/// `GotenbergConverter` against a fake Gotenberg 8 on 127.0.0.1 that answers like the real one,
/// and like a broken one.
@Suite(.timeLimit(.minutes(1))) struct GotenbergConverterTests {
    /// What the fake saw of one request.
    struct Seen: Sendable {
        var path = ""
        var trace: String?
        var fields: [String: String] = [:]
        var files: [(name: String, filename: String?, body: [UInt8])] = []
    }

    func converter(_ server: FakeHTTPServer, lowSpeed: HTTPClientConfiguration.LowSpeedLimit? = nil) -> GotenbergConverter {
        GotenbergConverter(configuration: .init(baseURL: server.baseURL + "/", http: httpTestTransport(lowSpeed: lowSpeed), urlGuard: hostsTable))
    }

    /// DNS as a fixed table, so URL vetting never leaves the machine.
    let hostsTable = URLGuard(resolver: { host in
        ["example.com": ["93.184.215.14"], "metadata.example": ["169.254.169.254"]][host, default: []].compactMap { IPAddress(host: $0) }
    })

    /// A fake that records the form and answers with a real PDF.
    func recordingServer(_ seen: Locked<Seen>) throws -> FakeHTTPServer {
        try FakeHTTPServer { request, response in
            let parts = try request.readMultipartForm()
            seen.update { seen in
                seen.path = request.path
                seen.trace = request.header("Gotenberg-Trace")
                for part in parts {
                    if part.filename == nil { seen.fields[part.name] = part.text } else { seen.files.append((part.name, part.filename, part.body)) }
                }
            }
            try response.respond(status: 200, headers: [("Content-Type", "application/pdf")], body: onePagePDF)
        }
    }

    @Test func aURLThatResolvesToAPrivateAddressNeverReachesGotenberg() async throws {
        let requests = Locked(0)
        let server = try FakeHTTPServer { _, response in
            requests.update { $0 += 1 }
            try response.respond(status: 200, headers: [("Content-Type", "application/pdf")], body: onePagePDF)
        }
        let job = HTTPBackendJob()
        let failure = await thrownFailure {
            try await converter(server).convert(job.request(.urlToPDF, .url("http://metadata.example/latest/")), events: { _ in })
        }
        #expect(failure?.kind == .rejected && failure?.code == "url_forbidden")
        #expect(failure?.message.contains("169.254.169.254") == true && failure?.message.contains("link-local") == true)
        #expect(requests.value == 0, "Gotenberg was never asked to fetch it")
        #expect(!FileManager.default.fileExists(atPath: job.output))
    }

    @Test func urlJobPostsTheURLAndChromiumOptionsAndStoresThePDF() async throws {
        let seen = Locked(Seen())
        let server = try recordingServer(seen)
        let job = HTTPBackendJob()
        let jobID = UUID()
        let options = ConversionOptions(paperWidth: 8.27, paperHeight: 11.7, landscape: true, margin: 0.5, printBackground: false)
        let events = HTTPBackendEvents()
        try await converter(server).convert(
            job.request(.urlToPDF, .url("https://example.com/a?b=c"), options: options, jobID: jobID),
            events: events.sink
        )

        #expect(fileBytes(job.output) == onePagePDF)
        #expect(events.all == [.entered(.converting)])
        let got = seen.value
        #expect(got.path == "/forms/chromium/convert/url")
        #expect(got.trace == jobID.uuidString.lowercased())
        #expect(
            got.fields == [
                "url": "https://example.com/a?b=c", "paperWidth": "8.27", "paperHeight": "11.7", "marginTop": "0.5", "marginBottom": "0.5",
                "marginLeft": "0.5", "marginRight": "0.5", "landscape": "true", "printBackground": "false",
            ]
        )
        #expect(got.files.isEmpty)
    }

    @Test func browserOptionsBecomeGotenbergsChromiumFields() async throws {
        let seen = Locked(Seen())
        let server = try recordingServer(seen)
        let job = HTTPBackendJob()
        var options = ConversionOptions(printBackground: false)
        options.browser.waitDelay = 1.5
        options.browser.waitForSelector = "#ready"
        options.browser.waitForExpression = "window.done === true"
        options.browser.emulatedMediaType = .screen
        options.browser.extraHTTPHeaders = ["X-Token": "abc"]
        options.browser.cookies = [
            .init(name: "s", value: "1", httpOnly: true, sameSite: .lax), .init(name: "t", value: "2", domain: "cdn.example.com"),
        ]
        options.browser.userAgent = "Agent/1"
        options.browser.pageRanges = "1-3,5"
        options.browser.scale = 0.8
        options.browser.preferCSSPageSize = true
        options.browser.generateTaggedPDF = true
        options.browser.generateDocumentOutline = true
        options.browser.failOnHTTPStatusCodes = [499, 599]
        options.browser.failOnResourceHTTPStatusCodes = [404]
        options.browser.failOnResourceLoadingFailed = true
        options.browser.failOnConsoleExceptions = false
        options.browser.headerHTML = "<span class=title></span>"
        options.browser.footerHTML = "<span class=pageNumber></span>"
        try await converter(server).convert(job.request(.urlToPDF, .url("https://example.com:8443/a"), options: options), events: { _ in })

        let got = seen.value
        #expect(
            got.fields == [
                "url": "https://example.com:8443/a", "printBackground": "false", "waitDelay": "1.5s", "waitForSelector": "#ready",
                "waitForExpression": "window.done === true", "emulatedMediaType": "screen",
                // Scoped to the page's origin, in Gotenberg's "; scope=" syntax.
                "extraHttpHeaders": #"{"X-Token":"abc;scope=^https://example\\.com:8443([/?#]|$)"}"#,
                "cookies":
                    #"[{"domain":"example.com","httpOnly":true,"name":"s","path":"/","sameSite":"Lax","value":"1"},"#
                    + #"{"domain":"cdn.example.com","name":"t","path":"/","value":"2"}]"#,
                "userAgent": "Agent/1", "nativePageRanges": "1-3,5", "scale": "0.8", "preferCssPageSize": "true",
                "generateTaggedPdf": "true", "generateDocumentOutline": "true", "failOnHttpStatusCodes": "[499,599]",
                "failOnResourceHttpStatusCodes": "[404]", "failOnResourceLoadingFailed": "true", "failOnConsoleExceptions": "false",
            ]
        )
        #expect(got.files.map(\.filename) == ["header.html", "footer.html"])
        #expect(got.files.map(\.name) == ["files", "files"])
        #expect(got.files.map { String(decoding: $0.body, as: UTF8.self) } == ["<span class=title></span>", "<span class=pageNumber></span>"])
    }

    @Test func singlePageAndAnExplicitHeaderScopeReachGotenbergAsGiven() async throws {
        let seen = Locked(Seen())
        let server = try recordingServer(seen)
        let job = HTTPBackendJob()
        var options = ConversionOptions()
        options.browser.singlePage = true
        options.browser.extraHTTPHeaders = ["Authorization": "Bearer x"]
        options.browser.extraHTTPHeadersScope = "^https://api\\.example\\.com/"
        try await converter(server).convert(job.request(.urlToPDF, .url("https://example.com/"), options: options), events: { _ in })
        #expect(seen.value.fields["singlePage"] == "true")

        // omit_background needs backgrounds printed, as Gotenberg insists: it implies them.
        let omitted = Locked(Seen())
        var transparent = ConversionOptions()
        transparent.browser.omitBackground = true
        let omittingServer = try recordingServer(omitted)
        defer { omittingServer.stop() }
        try await converter(omittingServer).convert(
            job.request(.urlToPDF, .url("https://example.com/"), options: transparent),
            events: { _ in }
        )
        #expect(omitted.value.fields["omitBackground"] == "true" && omitted.value.fields["printBackground"] == "true", "\(omitted.value.fields)")
        #expect(seen.value.fields["extraHttpHeaders"] == #"{"Authorization":"Bearer x;scope=^https://api\\.example\\.com/"}"#)
    }

    /// Gotenberg splits header values at ';' and rejoins them with "; ": what it would give
    /// back unchanged is sent so it does, what it would alter is refused before any call.
    @Test func headerValuesReachThePageAsGivenOrAreRefused() async throws {
        let seen = Locked(Seen())
        let server = try recordingServer(seen)
        var options = ConversionOptions()
        options.browser.extraHTTPHeaders = ["Accept": "text/html; q=0.9"]
        options.browser.extraHTTPHeadersScope = "^https://example\\.com/"
        let job = HTTPBackendJob()
        try await converter(server).convert(job.request(.urlToPDF, .url("https://example.com/"), options: options), events: { _ in })
        #expect(seen.value.fields["extraHttpHeaders"] == #"{"Accept":"text/html;q=0.9;scope=^https://example\\.com/"}"#)
        // What Gotenberg makes of it: the pieces before the scope, joined with "; ".
        #expect(GotenbergForm.gotenbergSplit("text/html; q=0.9")?.split(separator: ";").joined(separator: "; ") == "text/html; q=0.9")

        for (value, scope) in [("a;b", nil), ("x; scope=.*", nil), ("fine", "^https://a;b")] as [(String, String?)] {
            var refused = ConversionOptions()
            refused.browser.extraHTTPHeaders = ["X-Odd": value]
            refused.browser.extraHTTPHeadersScope = scope
            let calls = Locked(0)
            let counting = try FakeHTTPServer { _, response in
                calls.update { $0 += 1 }
                try response.respond(status: 500)
            }
            let failure = await thrownFailure {
                try await converter(counting).convert(job.request(.urlToPDF, .url("https://example.com/"), options: refused), events: { _ in })
            }
            #expect(failure?.kind == .rejected && failure?.code == "unsupported_option", "\(value): \(String(describing: failure))")
            #expect(failure?.message.contains(scope == nil ? "X-Odd" : "extra_http_headers_scope") == true, "\(failure?.message ?? "")")
            #expect(calls.value == 0)
        }
    }

    @Test func officeFileKeepsItsNameSoGotenbergPicksTheImporter() async throws {
        let seen = Locked(Seen())
        let server = try recordingServer(seen)
        let job = HTTPBackendJob()
        let source = try job.staged(Fixtures.office("sample.docx"), as: "Quarterly report.docx")
        try await converter(server).convert(job.request(.docToPDF, source, options: ConversionOptions(landscape: false)), events: { _ in })

        let got = seen.value
        #expect(got.path == "/forms/libreoffice/convert")
        #expect(got.fields == ["landscape": "false"])
        #expect(got.files.count == 1)
        #expect(got.files.first?.filename == "Quarterly report.docx")
        #expect(got.files.first?.body == fileBytes(Fixtures.office("sample.docx")))
        #expect(fileBytes(job.output) == onePagePDF)
    }

    @Test func officeOptionsAndThePasswordBecomeGotenbergsLibreOfficeFields() async throws {
        let seen = Locked(Seen())
        let server = try recordingServer(seen)
        let job = HTTPBackendJob()
        let source = try job.staged(Fixtures.office("protected.docx"), as: "protected.docx")
        var options = ConversionOptions(landscape: true)
        options.browser.pageRanges = "1-2"
        options.office.exportFormFields = false
        options.office.exportBookmarks = true
        options.office.exportNotes = true
        options.office.exportNotesPages = false
        options.office.quality = 55
        options.office.maxImageResolution = 150
        options.office.singlePageSheets = true
        options.office.pdfa = .a2b
        options.office.pdfua = true
        var request = job.request(.docToPDF, source, options: options)
        request.secrets = JobSecrets(password: "secret")
        try await converter(server).convert(request, events: { _ in })

        let got = seen.value
        #expect(got.path == "/forms/libreoffice/convert")
        #expect(
            got.fields == [
                "password": "secret", "landscape": "true", "nativePageRanges": "1-2", "exportFormFields": "false", "exportBookmarks": "true",
                "exportNotes": "true", "exportNotesPages": "false", "quality": "55", "reduceImageResolution": "true",
                "maxImageResolution": "150", "singlePageSheets": "true", "pdfa": "PDF/A-2b", "pdfua": "true",
            ]
        )

        // Lossless images: the flag alone, and no reduction unless asked for.
        var lossless = ConversionOptions()
        lossless.office.losslessImageCompression = true
        let form = try GotenbergForm.make(for: job.request(.docToPDF, source, options: lossless))
        let fields = form.parts.compactMap { part -> String? in
            if case .text(let value) = part.value { return "\(part.name)=\(value)" }
            return nil
        }
        #expect(fields == ["losslessImageCompression=true"])
    }

    @Test func htmlUploadGoesToChromiumAsIndexHTML() async throws {
        let seen = Locked(Seen())
        let server = try recordingServer(seen)
        let job = HTTPBackendJob()
        let source = try job.staged(Fixtures.office("sample.html"), as: "page.HTM")
        try await converter(server).convert(job.request(.docToPDF, source), events: { _ in })

        #expect(seen.value.path == "/forms/chromium/convert/html")
        #expect(seen.value.files.first?.filename == "index.html")
        #expect(seen.value.files.first?.body == fileBytes(Fixtures.office("sample.html")))

        // .xhtml is a page too, as the intake counts it (LibreOffice options are refused for it).
        let xhtml = Locked(Seen())
        let other = try recordingServer(xhtml)
        let page = HTTPBackendJob()
        try await converter(other).convert(
            page.request(.docToPDF, try page.staged(Fixtures.office("sample.html"), as: "page.xhtml")),
            events: { _ in }
        )
        #expect(xhtml.value.path == "/forms/chromium/convert/html")
    }

    @Test func readinessIsTheHealthRoute() async throws {
        let healthy = Locked(true)
        let server = try FakeHTTPServer { request, response in
            guard request.path == "/health" else { return try response.respond(status: 404) }
            try response.respond(status: healthy.value ? 200 : 503, text: #"{"status":"up"}"#)
        }
        #expect(await converter(server).isReady())
        healthy.update { $0 = false }
        #expect(await !converter(server).isReady())
    }

    @Test func formFieldsForEachRoute() throws {
        let job = HTTPBackendJob()
        let form = try GotenbergForm.make(for: job.request(.urlToPDF, .url("https://x"), options: ConversionOptions(paperWidth: 10)))
        #expect(form.route == "/forms/chromium/convert/url")
        #expect(GotenbergForm.safeFilename("a/b\"c\r.docx") == "a_b_c_.docx")
        #expect(GotenbergForm.safeFilename(".docx") == "document.docx")
    }

    /// An HTML bundle goes to Gotenberg as its HTML route takes a page's files: index.html and
    /// every other file beside it, by name.
    @Test func anHTMLBundleIsSentAsThePageAndItsFiles() throws {
        let job = HTTPBackendJob()
        let site = job.directory.file("site.zip")
        try LocalConverterTests.HTMLBundles.zip(site, [("index.html", Array("<p>x</p>".utf8)), ("css/site.css", Array("p{}".utf8))])
        let form = try GotenbergForm.make(for: job.request(.docToPDF, .file(path: site, originalFilename: "site.zip")))
        #expect(form.route == "/forms/chromium/convert/html")
        let files = form.parts.compactMap { part -> String? in
            if case .file(_, let filename, _) = part.value { return filename }
            return nil
        }
        #expect(files == ["index.html", "site.css"], "\(files)")
    }
}
