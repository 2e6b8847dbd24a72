import Foundation
import GatewayJobModel
import GatewayProcess
import GatewayTestSupport
import GatewayURLSecurity
import Testing

@testable import GatewayLocalConverters

extension LocalConverterTests {
    /// The tests on the default address rules share one warm converter; those that allow a
    /// loopback port start one of their own with that rule.
    @Suite(.serialized, .oneConverter()) struct Chromium {
        @Test func uploadedHTMLIsPrintedByChromium() async throws {
            try await withSuiteConverter { converter in
                let job = JobFixture()
                let request = job.request(.docToPDF, job.file(Fixtures.office("sample.html")))
                #expect(converter.backend(for: request) is ChromiumConverter)
                let events = EventLog()
                try await converter.convert(request, events: events.sink)
                #expect(try await pdfinfoPageCount(job.output) == expectedPageCount("office/sample.html#chromium"))
                #expect(events.progress == [.entered(.converting)])
            }
        }

        @Test func paperOptionsApplyToUploadedHTML() async throws {
            try await withSuiteConverter { converter in
                let job = JobFixture()
                let options = ConversionOptions(paperWidth: 8.27, paperHeight: 11.69, landscape: true, margin: 0.5)
                try await converter.convert(job.request(.docToPDF, job.file(Fixtures.office("sample.html")), options: options), events: { _ in })
                // 11.69 × 8.27 in is 841.7 × 595.4 pt; Chromium rounds its paper to whole device units.
                let size = try await PDFProbe.pageSize(job.output)
                #expect(abs(size.width - 841.7) < 1.5 && abs(size.height - 595.4) < 1.5, "\(size)")
            }
        }

        /// Each side's margin on its own (Gotenberg's marginTop…): the first word sits at the
        /// left and top margins, measured by Poppler's word boxes.
        @Test func eachSideTakesItsOwnMargin() async throws {
            let job = JobFixture()
            let page = job.directory.file("corner.html")
            try "<!DOCTYPE html><html><body style=\"margin:0\"><p style=\"margin:0;font:20px sans-serif\">Corner</p></body></html>"
                .write(toFile: page, atomically: true, encoding: .utf8)
            var options = ConversionOptions(margin: 0.1)
            options.marginLeft = 2
            options.marginTop = 1
            try await withSuiteConverter { converter in
                try await converter.convert(job.request(.docToPDF, job.file(page), options: options), events: { _ in })
                let word = try await WordBox.of("Corner", in: job.output)
                // 2 in is 144 pt from the left, 1 in 72 pt from the top (not 0.1 in, the margin of the other sides).
                #expect(word.map { abs($0.xMin - 144) < 3 && abs($0.yMin - 72) < 3 } == true, "\(String(describing: word))")
            }
        }

        @Test func uploadedHTMLCannotReadOtherLocalFiles() async throws {
            let job = JobFixture()
            let secret = job.directory.file("secret.txt")
            try "TOP-SECRET-MARKER".write(toFile: secret, atomically: true, encoding: .utf8)
            let page = job.directory.file("page.html")
            try "<!DOCTYPE html><html><head><title>t</title></head><body><p>visible</p><iframe src=\"file://\(secret)\"></iframe></body></html>"
                .write(toFile: page, atomically: true, encoding: .utf8)
            try await withSuiteConverter { converter in
                try await converter.convert(job.request(.docToPDF, job.file(page)), events: { _ in })
                let text = try await run("pdftotext", [job.output, "-"]).stdout
                #expect(text.contains("visible"))
                #expect(!text.contains("TOP-SECRET-MARKER"))
            }
        }

        /// Markup that tries every way out of an uploaded page: a `<head>` the old meta-tag CSP
        /// could be fooled by, a script and a refresh that navigate to a local file, objects, and
        /// a frame from a loopback server. None of the secrets may reach the PDF.
        @Test(arguments: [
            "<!--<head>--><p>visible</p><iframe src=\"file://SECRET\"></iframe>",
            "<title><head></title><p>visible</p><object data=\"file://SECRET\"></object><embed src=\"file://SECRET\">",
            "<p>visible</p><script>location.href = 'file://SECRET'</script>",
            "<meta http-equiv=\"refresh\" content=\"0;url=file://SECRET\"><p>visible</p>",
            "<p>visible</p><iframe src=\"LOOPBACK/secret.html\"></iframe><script>fetch('LOOPBACK/secret.html').then(r => r.text()).then(t => document.body.append(t))</script>",
        ])
        func hostileUploadedHTMLReachesNoLocalFileOrLoopbackServer(_ markup: String) async throws {
            let job = JobFixture()
            let secret = job.directory.file("secret.txt")
            try "TOP-SECRET-FILE".write(toFile: secret, atomically: true, encoding: .utf8)
            let site = TemporaryDirectory("pdfgate-secret-site")
            try "<p>TOP-SECRET-LOOPBACK</p>".write(toFile: site.file("secret.html"), atomically: true, encoding: .utf8)
            let server = try StaticFileServer(directory: site.path)
            defer { server.stop() }
            let page = job.directory.file("page.html")
            let html = markup.replacingOccurrences(of: "SECRET", with: secret).replacingOccurrences(
                of: "LOOPBACK",
                with: "http://127.0.0.1:\(server.port)"
            )
            try html.write(toFile: page, atomically: true, encoding: .utf8)
            // Even with the loopback server allow-listed for URL jobs, an upload reaches nothing.
            let allowed = LocalConverter.Configuration(urlGuard: URLGuard(check: URLCheck(allowList: ["127.0.0.1:\(server.port)"])))
            try await withConverter(allowed) { converter in
                do {
                    try await converter.convert(job.request(.docToPDF, job.file(page)), events: { _ in })
                } catch let failure as JobFailure {
                    Issue.record("the page should still print, without what it tried to load: \(failure.message)")
                    return
                }
                let text = try await run("pdftotext", [job.output, "-"]).stdout
                #expect(!text.contains("TOP-SECRET"), "leaked into the PDF: \(text)")
                #expect(text.contains("visible"), "the page itself is printed: \(text)")
                #expect(server.requests == 0, "the loopback server was reached")
            }
        }

        @Test func urlServedOnLoopbackIsPrinted() async throws {
            let site = TemporaryDirectory("pdfgate-site")
            try "<!DOCTYPE html><html><head><title>Loopback</title></head><body><h1>Served over HTTP</h1></body></html>"
                .write(toFile: site.file("page.html"), atomically: true, encoding: .utf8)
            let server = try StaticFileServer(directory: site.path)
            defer { server.stop() }

            let allowed = LocalConverter.Configuration(urlGuard: URLGuard(check: URLCheck(allowList: ["127.0.0.1:\(server.port)"])))
            try await withConverter(allowed) { converter in
                let job = JobFixture()
                let request = job.request(.urlToPDF, .url("http://127.0.0.1:\(server.port)/page.html"))
                #expect(converter.backend(for: request) is ChromiumConverter)
                try await converter.convert(request, events: { _ in })
                #expect(try await pdfinfoPageCount(job.output) == 1)
                #expect(try await run("pdftotext", [job.output, "-"]).stdout.contains("Served over HTTP"))
            }
        }

        /// URL jobs print through DevTools, so the job's paper options reach someone else's page.
        @Test func paperOptionsApplyToURLs() async throws {
            let site = TemporaryDirectory("pdfgate-site")
            try "<!DOCTYPE html><html><head><title>Wide</title></head><body style=\"background:#c33\"><h1>Landscape A5</h1></body></html>"
                .write(toFile: site.file("page.html"), atomically: true, encoding: .utf8)
            let server = try StaticFileServer(directory: site.path)
            defer { server.stop() }
            let allowed = LocalConverter.Configuration(urlGuard: URLGuard(check: URLCheck(allowList: ["127.0.0.1:\(server.port)"])))
            try await withConverter(allowed) { converter in
                let job = JobFixture()
                let options = ConversionOptions(paperWidth: 5.83, paperHeight: 8.27, landscape: true, margin: 0.2, printBackground: true)
                try await converter.convert(
                    job.request(.urlToPDF, .url("http://127.0.0.1:\(server.port)/page.html"), options: options),
                    events: { _ in }
                )
                // A5 landscape is 595.4 × 419.8 pt; Chromium rounds its paper to whole device units.
                let size = try await PDFProbe.pageSize(job.output)
                #expect(abs(size.width - 595.4) < 1.5 && abs(size.height - 419.8) < 1.5, "\(size)")
                #expect(try await run("pdftotext", [job.output, "-"]).stdout.contains("Landscape A5"))
            }
        }

        @Test func unreachableURLFailsWithChromiumsReason() async throws {
            let port = try StaticFileServer.freePort()  // nothing listens there
            let allowed = LocalConverter.Configuration(urlGuard: URLGuard(check: URLCheck(allowList: ["127.0.0.1:\(port)"])))
            try await withConverter(allowed) { converter in
                let job = JobFixture()
                let error = await conversionError {
                    try await converter.convert(job.request(.urlToPDF, .url("http://127.0.0.1:\(port)/")), events: { _ in })
                }
                let failure = try #require(error as? JobFailure)
                #expect(failure.code == "page_load_failed")
                #expect(failure.kind == .transient)
                #expect(failure.message.contains("Connection refused"), "the proxy says why: \(failure.message)")
            }
        }

        @Test func privateAddressesAreRefusedUnlessAllowed() async throws {
            let site = TemporaryDirectory("pdfgate-site")
            try "<html><body>internal</body></html>".write(toFile: site.file("page.html"), atomically: true, encoding: .utf8)
            let server = try StaticFileServer(directory: site.path)
            defer { server.stop() }
            try await withSuiteConverter { converter in
                let job = JobFixture()
                let error = await conversionError {
                    try await converter.convert(job.request(.urlToPDF, .url("http://127.0.0.1:\(server.port)/page.html")), events: { _ in })
                }
                let failure = try #require(error as? JobFailure)
                #expect(failure.code == "url_forbidden" && failure.kind == .rejected)
                #expect(failure.message.contains("loopback"))
                #expect(!FileManager.default.fileExists(atPath: job.output))
            }
        }

        @Test func nonWebURLsAreRejected() async throws {
            try await withSuiteConverter { converter in
                let job = JobFixture()
                let error = await conversionError {
                    try await converter.convert(job.request(.urlToPDF, .url("file:///etc/passwd")), events: { _ in })
                }
                #expect((error as? JobFailure)?.kind == .rejected)
            }
        }
    }
}

/// `python3 -m http.server` bound to 127.0.0.1 on a free port, for URL jobs.
final class StaticFileServer: Sendable {
    let port: Int
    private let process: Child
    /// The server's request log (one line per request, on its stderr).
    private let log = FileManager.default.temporaryDirectory.path + "/pdfgate-static-\(UUID().uuidString.prefix(8)).log"

    /// Requests the server has answered so far.
    var requests: Int {
        ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: "\n").filter { $0.contains("\"GET ") }.count
    }

    init(directory: String) throws {
        port = try Self.freePort()
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process = try Child(
            "/usr/bin/python3",
            ["-m", "http.server", "--bind", "127.0.0.1", "--directory", directory, String(port)],
            stderr: .file(log)
        )
        try eventuallyOnThisThread("the static server accepts connections", within: .seconds(5), poll: .milliseconds(50)) { Self.canConnect(port) }
    }

    func stop() {
        process.killNow()
        try? FileManager.default.removeItem(atPath: log)
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw CocoaError(.fileReadUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
