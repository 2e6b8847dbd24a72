import Foundation
import GatewayTestSupport
import Testing

/// The web page, as a user meets it: a real `pdfgate serve` on loopback, Debian's
/// headless Chromium clicking through it, real conversions with the local converters, and the
/// API to check that what the page showed is what happened. Screenshots of the main screens go
/// to `.build/test-output/web/`.
@Suite("Web page", .serialized)
struct WebPageTests {
    static let screenshots = Fixtures.root + "/../.build/test-output/web"

    /// Files the one-page fixture PDF as `name` through the API, as a script would.
    static func file(_ name: String, with client: APIClient) async throws {
        let encoded = try #require(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let filed = try await client.send(
            "POST",
            "/v1/documents?name=\(encoded)",
            body: .file(path: Fixtures.pdf("one-page.pdf")),
            headers: [("Content-Type", "application/pdf")]
        )
        #expect(filed.status == 201, "\(filed.text)")
    }

    /// Opens the page in `browser` and drops `files` on it, as a user would before pressing Convert.
    static func open(_ server: ServerProcess, in browser: HeadlessBrowser, dropping files: [String]) async throws {
        try await browser.open(server.baseURL + "/")
        try await browser.waitUntil("document.body.dataset.ready === 'true'", "the page to start")
        try await browser.dropFiles(on: "#drop", files)
        try await browser.waitUntil("document.querySelector('#files').files.length === \(files.count)", "the dropped files to be taken")
    }

    // MARK: - Served safely

    @Test("/ is the page: strict CSP, no framing, ETag revalidation, its files cached for good under a version, under 150 KB, no inline code")
    func servedWithItsHeaders() async throws {
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            // As a browser asks: without text/html, `/` is Gotenberg's sentence for API clients.
            let browser = [("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")]
            let page = try await client.get("/", headers: browser)
            #expect(page.status == 200 && page.headers["Content-Type"]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("<script"), "the page, not Gotenberg's sentence")
            let csp = try #require(page.headers["Content-Security-Policy"])
            for directive in ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"] {
                #expect(csp.contains(directive), "CSP has \(directive): \(csp)")
            }
            #expect(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"))
            #expect(page.headers["X-Frame-Options"] == "DENY" && page.headers["X-Content-Type-Options"] == "nosniff")
            let etag = try #require(page.headers["ETag"])
            let again = try await client.get("/", headers: browser + [("If-None-Match", etag)])
            #expect(again.status == 304 && again.body.isEmpty, "an unchanged page is revalidated, not resent")

            // Every file the page loads, its weight, and nothing a CSP would have to allow inline.
            let html = page.text
            #expect(!html.contains("style=\"") && !html.contains(" on"), "no inline style or handler attributes")
            #expect(html.range(of: #"<script(?![^>]*\bsrc=)[^>]*>"#, options: .regularExpression) == nil, "no inline script")
            // Its files under a version, cached for good; another version's name is today's file, revalidated.
            let pinnedPath = try #require(html.range(of: #"/ui/[0-9a-f]{12}/app\.js"#, options: .regularExpression).map { String(html[$0]) })
            #expect(!html.contains("\"/ui/app.js\""), "every file under the version")
            let pinned = try await client.get(pinnedPath)
            #expect(pinned.status == 200 && pinned.headers["Cache-Control"] == "public, max-age=31536000, immutable")
            let stale = try await client.get("/ui/000000000000/app.js")
            #expect(stale.status == 200 && stale.headers["Cache-Control"] == "no-cache" && stale.body == pinned.body)
            var weight = page.body.count
            // Every file of the page's directory, so a module added there but not embedded (or not
            // in WebAssets' table) fails here rather than in a browser.
            let directory = URL(fileURLWithPath: Fixtures.root).deletingLastPathComponent().appendingPathComponent("Sources/GatewayServer/Web")
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") && $0 != "index.html" }
            #expect(names.contains("app.js") && names.contains("style.css"), "the page's directory: \(names)")
            for name in names.sorted() {
                let file = try await client.get("/ui/\(name)")
                #expect(file.status == 200, "/ui/\(name)")
                #expect(file.headers["Content-Security-Policy"] != nil)
                weight += file.body.count
                if name.hasSuffix(".js") {
                    for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "eval(", "new Function", "document.write"] {
                        #expect(!file.text.contains(sink), "\(name) renders nothing through \(sink)")
                    }
                    #expect(file.headers["Content-Type"]?.hasPrefix("text/javascript") == true)
                    // One part of the page per module, small enough to read in one sitting.
                    let lines = file.text.split(separator: "\n", omittingEmptySubsequences: false).count - 1
                    #expect(lines <= 300, "\(name) has \(lines) lines")
                }
            }
            #expect(weight < 150_000, "page weight \(weight) bytes")
            // A path in the file's name reaches the handler encoded (a client squashes a plain `../`).
            #expect(try await client.get("/ui/..%2FPackage.swift").status == 404)
            #expect(try await client.get("/ui/secrets.json").status == 404, "only the page's own files")
            await server.stop()
        }
    }

    // MARK: - Convert and organize, in Chromium

    @Test("drop a docx and a URL, watch both succeed, rename, move by drag and by dialog, search, delete; a failure's message shows")
    func convertAndOrganize() async throws {
        let site = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            // A page that takes its time: the job for it is still running when the page opens.
            try response.respond(
                after: request.path.hasPrefix("/slow") ? .seconds(4) : .zero,
                status: 200,
                headers: [("Content-Type", "text/html; charset=utf-8")],
                body: Array("<!doctype html><title>Quarterly report</title><h1>Quarterly report</h1><p>Figures.</p>".utf8)
            )
        }
        defer { site.stop() }
        try await using(await ServerProcess(arguments: ["--allow-host", "127.0.0.1"])) { server in
            let client = APIClient(base: server.baseURL)
            let broken = server.store + "-broken.docx"
            try Data("this is not a Word document".utf8).write(to: URL(fileURLWithPath: broken))

            // A job started elsewhere (a script, another tab) before the page opens.
            let earlier = try await client.post("/v1/jobs", json: ["type": "URL_TO_PDF", "url": site.baseURL + "/slow.html", "name": "Slow page"])
            #expect(earlier.status == 201 || earlier.status == 202, "\(earlier.text)")
            let earlierID = try #require(earlier.string("job_id"))

            do {
                let browser = try await HeadlessBrowser()
                defer { browser.stop() }
                try await browser.open(server.baseURL + "/")
                try await browser.waitUntil("document.body.dataset.ready === 'true'", "the page to start")
                try await browser.waitUntil("document.querySelector('li.job[data-job-id=\"\(earlierID)\"]')", "the running job started elsewhere")
                try await browser.waitUntil("document.querySelector('#library .empty')", "the empty library's hint")

                try await browser.dropFiles(on: "#drop", [Fixtures.office("sample.docx"), broken])
                try await browser.waitUntil("document.querySelector('#files').files.length === 2", "the dropped files to be taken")
                try await browser.evaluate("document.querySelector('#urls').value = '\(site.baseURL)/report.html'")
                try await browser.evaluate("document.querySelector('#convert').click()")
                try await browser.waitUntil("document.querySelectorAll('#jobs li.job').length === 4", "four jobs on the page")
                try await browser.waitUntil(
                    "[...document.querySelectorAll('#jobs .job-status')].filter(s => s.textContent.trim() === 'SUCCEEDED').length === 3",
                    "the docx, the URL and the earlier job to succeed",
                    timeout: .seconds(180)
                )
                try await browser.waitUntil(
                    "[...document.querySelectorAll('#jobs li.job')].some(j => j.querySelector('.job-status').textContent.trim() === 'FAILED' && !j.querySelector('.job-error').hidden && j.querySelector('.job-error').textContent.trim().length > 10)",
                    "the broken file's failure in words",
                    timeout: .seconds(120)
                )
                try await browser.screenshot(to: Self.screenshots + "/convert.png")
                try await browser.waitUntil(
                    "document.querySelectorAll('#documents tbody tr[data-document-id]').length === 3",
                    "the three documents listed"
                )
            }
            var documents = try await client.get("/v1/documents").json["documents"] as? [[String: Any]] ?? []
            #expect(documents.count == 3, "the API lists the three documents the page shows")
            let docx = try #require(documents.first { ($0["name"] as? String) == "sample" }?["id"] as? String)
            let web = try #require(documents.first { !["sample", "Slow page"].contains($0["name"] as? String) }?["id"] as? String)

            do {
                let browser = try await HeadlessBrowser()
                defer { browser.stop() }
                try await browser.open(server.baseURL + "/")
                try await browser.waitUntil("document.querySelectorAll('#documents tbody tr[data-document-id]').length === 3", "the library")
                try await browser.screenshot(to: Self.screenshots + "/library.png")
                let row = "document.querySelector('tr[data-document-id=\"\(docx)\"]')"

                // Rename inline.
                try await browser.evaluate("\(row).querySelector('.doc-rename').click()")
                try await browser.waitUntil("\(row).querySelector('input.doc-name-input')", "the name to become editable")
                try await browser.evaluate(
                    """
                    (() => { const input = \(row).querySelector('input.doc-name-input'); input.value = 'Contract signed';
                      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true })); })()
                    """
                )
                try await browser.waitUntil("\(row)?.querySelector('.doc-name')?.textContent.includes('Contract signed')", "the new name")

                // A new folder, then drag the document onto it.
                try await browser.evaluate("document.querySelector('#new-folder').click()")
                try await browser.waitUntil("document.querySelector('#folder-dialog').open", "the folder dialog")
                try await browser.evaluate("document.querySelector('#folder-name').value = 'Contracts'; document.querySelector('#folder-ok').click()")
                try await browser.waitUntil(
                    "[...document.querySelectorAll('button.folder')].some(b => b.textContent.includes('Contracts'))",
                    "the folder"
                )
                try await browser.evaluate(
                    """
                    (() => { const dt = new DataTransfer(); const row = \(row);
                      const folder = [...document.querySelectorAll('button.folder')].find(b => b.textContent.includes('Contracts'));
                      row.dispatchEvent(new DragEvent('dragstart', { bubbles: true, cancelable: true, dataTransfer: dt }));
                      for (const type of ['dragenter', 'dragover', 'drop'])
                        folder.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
                      row.dispatchEvent(new DragEvent('dragend', { bubbles: true, dataTransfer: dt })); })()
                    """
                )
                try await browser.waitUntil("!\(row)", "the dragged document to leave the root folder")
            }
            var moved = try await client.get("/v1/documents/\(docx)").json
            #expect(moved["name"] as? String == "Contract signed" && moved["folder"] as? String == "Contracts", "renamed and moved: \(moved)")

            do {
                let browser = try await HeadlessBrowser()
                defer { browser.stop() }
                try await browser.open(server.baseURL + "/")
                let row = "document.querySelector('tr[data-document-id=\"\(web)\"]')"
                try await browser.waitUntil(row, "the web page's document")
                // Move with the dialog.
                try await browser.evaluate("\(row).querySelector('.doc-move').click()")
                try await browser.waitUntil("document.querySelector('#move-dialog').open", "the move dialog")
                try await browser.evaluate(
                    """
                    (() => { const select = document.querySelector('#move-target');
                      const option = [...select.options].find(o => o.textContent.includes('Contracts'));
                      select.value = option.value; select.dispatchEvent(new Event('change', { bubbles: true }));
                      document.querySelector('#move-ok').click(); })()
                    """
                )
                try await browser.waitUntil("!\(row)", "the moved document to leave the root folder")

                // Find it again by search, from the root.
                try await browser.evaluate(
                    "(() => { const s = document.querySelector('#search'); s.value = 'Contract'; s.dispatchEvent(new Event('input', { bubbles: true })); })()"
                )
                try await browser.waitUntil(
                    "document.querySelectorAll('#documents tbody tr[data-document-id]').length === 1 && document.querySelector('tr[data-document-id=\"\(docx)\"]')",
                    "the search to find the renamed document"
                )
                // By what the pages say: both web pages print "Figures", each row with its page and the word marked.
                try await browser.evaluate(
                    "(() => { const s = document.querySelector('#search'); s.value = 'figures'; s.dispatchEvent(new Event('input', { bubbles: true })); })()"
                )
                try await browser.waitUntil(
                    """
                    (() => { const rows = [...document.querySelectorAll('#documents tbody tr[data-document-id]')];
                      return rows.length === 2 && document.querySelector('tr[data-document-id="\(web)"]')
                        && rows.every(r => r.querySelector('.doc-snippet mark')?.textContent === 'Figures'
                          && r.querySelector('.doc-snippet-page')?.textContent === 'p. 1'); })()
                    """,
                    "the search to find both web pages by their text"
                )
                try await browser.screenshot(to: Self.screenshots + "/search.png")
                try await browser.evaluate(
                    "(() => { const s = document.querySelector('#search'); s.value = 'Contract'; s.dispatchEvent(new Event('input', { bubbles: true })); })()"
                )
                try await browser.waitUntil(
                    "document.querySelectorAll('#documents tbody tr[data-document-id]').length === 1",
                    "the search by name again"
                )

                // Delete it, confirming.
                try await browser.evaluate("document.querySelector('tr[data-document-id=\"\(docx)\"] .doc-delete').click()")
                try await browser.waitUntil("document.querySelector('#confirm-dialog').open", "the confirmation")
                try await browser.evaluate("document.querySelector('#confirm-ok').click()")
                try await browser.waitUntil("!document.querySelector('tr[data-document-id=\"\(docx)\"]')", "the deleted document to go")
                #expect(browser.problems.filter { $0.contains("Content Security Policy") }.isEmpty, "no CSP violations: \(browser.problems)")
            }
            #expect(try await client.get("/v1/documents/\(docx)").status == 404, "deleted")
            moved = try await client.get("/v1/documents/\(web)").json
            #expect(moved["folder"] as? String == "Contracts", "moved by the dialog: \(moved)")
            documents = try await client.get("/v1/documents?folder=Contracts").json["documents"] as? [[String: Any]] ?? []
            #expect(documents.count == 1)
            await server.stop()
        }
    }

    // MARK: - Phone, dark, labels

    @Test("on a phone-sized screen in dark mode the page fits its width, and every control has a name")
    func phoneDarkAndLabelled() async throws {
        try await using(await ServerProcess()) { server in
            try await Self.file("A rather long document name that must wrap or truncate", with: APIClient(base: server.baseURL))
            do {
                let browser = try await HeadlessBrowser(width: 390, height: 844)
                defer { browser.stop() }
                try await browser.call("Emulation.setEmulatedMedia", ["features": [["name": "prefers-color-scheme", "value": "dark"]]])
                try await browser.open(server.baseURL + "/")
                try await browser.waitUntil("document.querySelector('#documents tbody tr[data-document-id]')", "the document")
                try await browser.screenshot(to: Self.screenshots + "/phone-dark.png")
                #expect(
                    try await browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth") as? Bool == true,
                    "no sideways scrolling"
                )
                let background = try await browser.evaluate("getComputedStyle(document.body).backgroundColor") as? String ?? ""
                let channels = background.split { !$0.isNumber }.compactMap { Int($0) }.prefix(3)
                #expect(channels.count == 3 && channels.reduce(0, +) < 200, "a dark background in dark mode: \(background)")
                let unnamed =
                    try await browser.evaluate(
                        """
                        [...document.querySelectorAll('button, input, select, textarea')]
                          .filter(c => !(c.textContent.trim() || c.getAttribute('aria-label') || c.getAttribute('aria-labelledby') || (c.labels && c.labels.length)))
                          .map(c => c.outerHTML.slice(0, 80))
                        """
                    ) as? [String]
                #expect(unnamed?.isEmpty == true, "controls without a name: \(unnamed ?? [])")
            }
            await server.stop()
        }
    }

    // MARK: - Tokens

    @Test("with tokens: sign in, see only that owner's documents, sign out forgets the token")
    func signInShowsOneOwner() async throws {
        let store = FileManager.default.temporaryDirectory.path + "/pdfgate-web-\(UUID().uuidString.prefix(8))"
        var tokens: [String: String] = [:]
        for owner in ["alice", "bob"] {
            tokens[owner] = try await OwnerIsolationTests.token(store, owner: owner)
        }
        try await using(await ServerProcess(store: store, arguments: ["--auth", "tokens"])) { server in
            for (owner, token) in tokens {
                var client = APIClient(base: server.baseURL)
                client.token = token
                try await Self.file("\(owner)-notes", with: client)
            }
            let alice = try #require(tokens["alice"])
            do {
                let browser = try await HeadlessBrowser()
                defer { browser.stop() }
                try await browser.open(server.baseURL + "/")
                try await browser.waitUntil(
                    "document.querySelector('form#sign-in') && !document.querySelector('form#sign-in').closest('[hidden]')",
                    "the sign-in form"
                )
                try await browser.screenshot(to: Self.screenshots + "/sign-in.png")
                try await browser.evaluate("document.querySelector('#token').value = 'wrong'; document.querySelector('form#sign-in').requestSubmit()")
                try await browser.waitUntil(
                    "!document.querySelector('#sign-in-message').hidden && document.querySelector('#sign-in-message').textContent.includes('not accepted')",
                    "a refusal in the form"
                )
                try await browser.evaluate(
                    "document.querySelector('#token').value = '\(alice)'; document.querySelector('form#sign-in').requestSubmit()"
                )
                do {
                    try await browser.waitUntil("document.querySelectorAll('#documents tbody tr[data-document-id]').length === 1", "alice's library")
                } catch {
                    let state = try? await browser.evaluate(
                        "document.body.innerText.slice(0, 600).split(String.fromCharCode(10)).join(' / ') + ' | ' + location.href + ' | ' + sessionStorage.getItem('pdfgate.token')"
                    )
                    Issue.record("\(error); page: \(state ?? "?"); problems: \(browser.problems)")
                    throw error
                }
                let names =
                    try await browser.evaluate("[...document.querySelectorAll('#documents .doc-name')].map(n => n.textContent.trim()).join(',')")
                    as? String
                #expect(names == "alice-notes", "only alice's documents: \(names ?? "nil")")
                #expect(try await browser.evaluate("sessionStorage.getItem('pdfgate.token')") as? String == alice)
                #expect(try await browser.evaluate("location.href.includes('\(alice)')") as? Bool == false, "the token never goes into a URL")
                try await browser.evaluate("document.querySelector('#sign-out').click()")
                try await browser.waitUntil(
                    "sessionStorage.getItem('pdfgate.token') === null && !document.querySelector('form#sign-in').closest('[hidden]')",
                    "sign-out"
                )
            }
            await server.stop()
        }
    }
}
