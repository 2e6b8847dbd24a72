import Foundation
import GatewayTestSupport
import Testing

/// The web page: merging documents, and hostile names shown as text.
extension WebPageTests {
    @Test("'merge' sends the dropped files and a page as one job: one document with every page, in order")
    func mergeIntoOnePDF() async throws {
        let site = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(
                status: 200,
                headers: [("Content-Type", "text/html; charset=utf-8")],
                body: Array("<!doctype html><title>Terms</title><h1>WEB TERMS MARKER</h1>".utf8)
            )
        }
        defer { site.stop() }
        try await using(await ServerProcess(arguments: ["--allow-host", "127.0.0.1"])) { server in
            let client = APIClient(base: server.baseURL)
            do {
                let browser = try await HeadlessBrowser()
                defer { browser.stop() }
                try await Self.open(server, in: browser, dropping: [Fixtures.pdf("many-pages.pdf"), Fixtures.pdf("one-page.pdf")])
                try await browser.evaluate("document.querySelector('#urls').value = '\(site.baseURL)/terms.html'")
                try await browser.evaluate("document.querySelector('#target-name').value = 'Bundle'")
                try await browser.evaluate("document.querySelector('#merge').click()")
                try await browser.evaluate("document.querySelector('#convert').click()")
                try await browser.waitUntil("document.querySelectorAll('#jobs li.job').length === 1", "one job on the page")
                try await browser.waitUntil(
                    "document.querySelector('#jobs .job-status').textContent.trim() === 'SUCCEEDED'",
                    "the merge to succeed",
                    timeout: .seconds(120)
                )
                try await browser.waitUntil(
                    "document.querySelectorAll('#documents tbody tr[data-document-id]').length === 1",
                    "the one document listed"
                )
            }
            let documents = try await client.get("/v1/documents").json["documents"] as? [[String: Any]] ?? []
            #expect(documents.count == 1 && documents.first?["name"] as? String == "Bundle", "\(documents)")
            let path = server.store + "/" + (try #require(documents.first?["path"] as? String))
            let twelve = try #require(try await pdfinfoPageCount(Fixtures.pdf("many-pages.pdf")))
            let one = try #require(try await pdfinfoPageCount(Fixtures.pdf("one-page.pdf")))
            let pages = try #require(try await pdfinfoPageCount(path))
            #expect(pages > twelve + one, "twelve pages, one page, then the web page: \(pages)")
            let afterTwelve = try await run(try which("pdftotext"), ["-f", "\(twelve + 1)", "-l", "\(twelve + 1)", path, "-"]).stdout
            let alone = try await run(try which("pdftotext"), [Fixtures.pdf("one-page.pdf"), "-"]).stdout
            #expect(afterTwelve.trimmingCharacters(in: .whitespacesAndNewlines) == alone.trimmingCharacters(in: .whitespacesAndNewlines))
            let last = try await run(try which("pdftotext"), ["-f", "\(pages)", "-l", "\(pages)", path, "-"]).stdout
            #expect(last.contains("WEB TERMS MARKER"), "the page comes last: \(last)")
            await server.stop()
        }
    }

    @Test("two photos of pages dropped with 'merge', 'turn pages upright' and OCR make one searchable scan, the upside-down page turned")
    func photosBecomeOneScan() async throws {
        let directory = TemporaryDirectory()
        let upright = try await ScanJobTests.page(directory, "page-1.jpg")
        let upsideDown = try await ScanJobTests.textPage(directory, "page-2.jpg", rotation: 180)
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            do {
                let browser = try await HeadlessBrowser()
                defer { browser.stop() }
                try await Self.open(server, in: browser, dropping: [upright, upsideDown])
                try await browser.evaluate("document.querySelector('#merge').click()")
                try await browser.evaluate("document.querySelector('#auto-rotate').click()")
                try await browser.evaluate("document.querySelector('#ocr').click()")
                try await browser.evaluate("document.querySelector('#convert').click()")
                try await browser.waitUntil(
                    "document.querySelector('#jobs .job-status')?.textContent.trim() === 'SUCCEEDED'",
                    "the scan to succeed",
                    timeout: .seconds(60)
                )
            }
            let jobs = try await client.get("/v1/jobs").json["jobs"] as? [[String: Any]] ?? []
            #expect(jobs.count == 1 && jobs.first?["type"] as? String == "SCAN_TO_PDF", "\(jobs)")
            let documents = try await client.get("/v1/documents").json["documents"] as? [[String: Any]] ?? []
            let path = server.store + "/" + (try #require(documents.first?["path"] as? String))
            #expect(try await ScanJobTests.pages(path).map(\.rotation) == [0, 180])
            // OCR read the turned page's words.
            let text = try await run(try which("pdftotext"), ["-raw", path, "-"]).stdout.lowercased()
            #expect(text.contains("quick brown fox"), "\(text.prefix(300))")
        }
    }

    // MARK: - Hostile names

    @Test("a document named like markup shows those characters and runs nothing")
    func hostileNamesAreText() async throws {
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            let hostile = "<img src=x onerror=window.pwned=1>"
            try await Self.file(hostile, with: client)
            do {
                let browser = try await HeadlessBrowser()
                defer { browser.stop() }
                try await browser.open(server.baseURL + "/")
                try await browser.waitUntil("document.querySelector('#documents tbody tr[data-document-id]')", "the document")
                // The details panel shows the name too; then every image has loaded or failed, so
                // an injected one would have run its onerror.
                try await browser.evaluate("document.querySelector('#documents tbody tr[data-document-id]').click()")
                try await browser.waitUntil(
                    "!document.querySelector('#details').hidden && document.querySelector('#details').textContent.includes('onerror')",
                    "the details panel"
                )
                try await browser.waitUntil("[...document.images].every(image => image.complete)", "every image loaded or failed")
                let shown = try await browser.evaluate("document.querySelector('#documents .doc-name').textContent.trim()") as? String
                #expect(shown == hostile, "the name as text: \(shown ?? "nil")")
                #expect(try await browser.evaluate("window.pwned === undefined && !document.querySelector('img[src=\"x\"]')") as? Bool == true)
            }
            await server.stop()
        }
    }
}
