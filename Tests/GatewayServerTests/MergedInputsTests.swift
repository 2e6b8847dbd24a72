import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

/// One job, several inputs: files and pages, each converted by its own backend (the
/// real LibreOffice and Chromium), merged in the order the request gave them — through a real
/// `pdfgate serve`, the results read back with `pdfinfo` and `pdftotext`.
@Suite("One job merging files and URLs", .serialized)
struct MergedInputsTests {
    /// A page on loopback whose text says where it came from; `/missing` answers 404.
    static func pageServer() throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request, response in
            if request.path.hasPrefix("/missing") {
                try response.respond(status: 404, headers: [("Content-Type", "text/plain")], text: "gone")
                return
            }
            let html = "<html><head><title>Loopback</title></head><body><h1>LOOPBACK PAGE MARKER</h1><p>served at \(request.path)</p></body></html>"
            try response.respond(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], text: html)
        }
    }

    /// `POST /v1/jobs` with a multipart form of `parts`, in order.
    static func postForm(_ client: APIClient, _ parts: [FormPart]) async throws -> APIClient.Answer {
        let (contentType, body) = try FormPart.encode(parts)
        return try await client.send("POST", "/v1/jobs", body: .bytes(body), headers: [("Content-Type", contentType)])
    }

    static func pageCount(_ server: ServerProcess, _ job: APIClient.Answer) async throws -> Int {
        try #require(try await pdfinfoPageCount(try PDFOperationsTests.file(server, job.json["document"] as? [String: Any])))
    }

    static func documentCount(_ client: APIClient) async throws -> Int {
        ((try await client.get("/v1/documents?recursive=true&limit=200")).json["documents"] as? [Any])?.count ?? -1
    }

    @Test("a .docx, a web page and a PDF in one multipart create: one document, every page, in the form's order")
    func multipartMergesInOrder() async throws {
        let pages = try Self.pageServer()
        defer { pages.stop() }
        try await using(await ServerProcess(arguments: ["--allow-host", "127.0.0.1"])) { server in
            let client = APIClient(base: server.baseURL)
            let page = pages.url("/article")

            let created = try await Self.postForm(
                client,
                [
                    .file("file", path: Fixtures.office("sample.docx")),
                    .text("url", page),
                    .file("file", path: Fixtures.pdf("one-page.pdf")),
                    .text("name", "Bundle"),
                ]
            )
            #expect(created.status == 201, "\(created.text)")
            #expect(created.string("type") == "PDF_TO_PDF")
            let inputs = created.json["inputs"] as? [[String: String]]
            #expect(inputs == [["file": "sample.docx"], ["url": page], ["file": "one-page.pdf"]], "\(created.text)")
            let job = try await PDFOperationsTests.finished(client, created)
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            #expect((job.json["document"] as? [String: Any])?["name"] as? String == "Bundle")

            // Each input alone, through the same server: the merge holds all their pages.
            var alone: [Int] = []
            for single in [
                try await client.oneShot("sample.docx"),
                try await client.post("/v1/jobs", json: ["type": "URL_TO_PDF", "url": page]),
                try await PDFOperationsTests.oneShot(client, "/v1/jobs?filename=one-page.pdf", Fixtures.pdf("one-page.pdf")),
            ] {
                let finished = try await PDFOperationsTests.finished(client, single)
                #expect(finished.string("status") == "SUCCEEDED", "\(finished.text)")
                alone.append(try await Self.pageCount(server, finished))
            }
            #expect(try await Self.pageCount(server, job) == alone.reduce(0, +), "alone: \(alone)")

            // In order: the document's text, then the page's, then the PDF's.
            let text = try await run(try which("pdftotext"), [try PDFOperationsTests.file(server, job.json["document"] as? [String: Any]), "-"])
                .stdout
            let pdfText =
                try await run(try which("pdftotext"), [Fixtures.pdf("one-page.pdf"), "-"]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").first.map(String.init) ?? "?"
            let docx = try #require(text.range(of: "Paragraph 1."), "\(text.prefix(400))")
            let web = try #require(text.range(of: "LOOPBACK PAGE MARKER"))
            let last = try #require(text.range(of: pdfText, options: .backwards), "'\(pdfText)' in the merge")
            #expect(docx.lowerBound < web.lowerBound && web.lowerBound < last.lowerBound)
        }
    }

    @Test("URLs only, as JSON; a failing input fails the job with its index, and nothing is filed")
    func jsonURLsAndAFailingInput() async throws {
        let pages = try Self.pageServer()
        defer { pages.stop() }
        try await using(await ServerProcess(arguments: ["--allow-host", "127.0.0.1"])) { server in
            let client = APIClient(base: server.baseURL)

            let both = try await PDFOperationsTests.finished(
                client,
                try await client.post("/v1/jobs", json: ["inputs": [["url": pages.url("/one")], ["url": pages.url("/two")]]])
            )
            #expect(both.string("status") == "SUCCEEDED", "\(both.text)")
            let text = try await run(try which("pdftotext"), [try PDFOperationsTests.file(server, both.json["document"] as? [String: Any]), "-"])
                .stdout
            let one = try #require(text.range(of: "served at /one"), "\(text)")
            let two = try #require(text.range(of: "served at /two"))
            #expect(one.lowerBound < two.lowerBound)
            // No name given: the first input's, marked as merged.
            #expect((both.json["document"] as? [String: Any])?["name"] as? String == "127.0.0.1 one (merged)")

            let before = try await Self.documentCount(client)
            let failing = try await PDFOperationsTests.finished(
                client,
                try await client.post(
                    "/v1/jobs",
                    json: [
                        "inputs": [["url": pages.url("/fine")], ["url": pages.url("/missing")]],
                        "options": ["fail_on_http_status_codes": [404]],
                    ]
                )
            )
            #expect(failing.string("status") == "FAILED", "\(failing.text)")
            let message = failing.string("error_message") ?? ""
            #expect(message.hasPrefix("inputs[1] (\(pages.url("/missing")))"), "\(message)")
            #expect(message.contains("404"), "\(message)")
            #expect(try await Self.documentCount(client) == before, "a failed merge files nothing")
        }
    }

    @Test("bad inputs are refused at create, each naming the input, and leave nothing behind")
    func refusals() async throws {
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)

            // Files cannot come in JSON: it says how to send them.
            let json = try await client.post("/v1/jobs", json: ["inputs": [["file": "a.docx"], ["url": "https://example.com/"]]])
            #expect(json.status == 400 && json.string("error") == "files_required", "\(json.text)")
            #expect(json.string("error_message")?.contains("multipart") == true, "\(json.text)")

            let shape = try await client.post("/v1/jobs", json: ["inputs": [["file": "a.docx", "url": "https://example.com/"]]])
            #expect(shape.status == 400 && shape.string("error") == "invalid_input", "\(shape.text)")
            #expect(shape.string("error_message")?.contains("inputs[0]") == true, "\(shape.text)")

            let typed = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "inputs": [["url": "https://example.com/"]]])
            #expect(typed.status == 422 && typed.string("error") == "conflicting_type", "\(typed.text)")

            let privatePage = try await client.post("/v1/jobs", json: ["inputs": [["url": "https://example.com/"], ["url": "http://10.1.2.3/"]]])
            #expect(privatePage.status == 422, "\(privatePage.text)")
            #expect(privatePage.string("error_message")?.hasPrefix("inputs[1]") == true, "\(privatePage.text)")

            let officeOnPages = try await client.post(
                "/v1/jobs",
                json: ["inputs": [["url": "https://example.com/"], ["url": "https://example.org/"]], "options": ["pdfa": "PDF/A-2b"]]
            )
            #expect(officeOnPages.status == 422 && officeOnPages.string("error") == "conflicting_options", "\(officeOnPages.text)")

            let scratch = TemporaryDirectory()
            try Data("MZ".utf8).write(to: URL(fileURLWithPath: scratch.file("tool.exe")))
            let unknownFormat = try await Self.postForm(
                client,
                [.file("file", path: Fixtures.office("sample.docx")), .file("file", path: scratch.file("tool.exe"))]
            )
            #expect(unknownFormat.status == 415 && unknownFormat.string("error") == "unsupported_format", "\(unknownFormat.text)")
            #expect(unknownFormat.string("error_message")?.hasPrefix("inputs[1]") == true, "\(unknownFormat.text)")

            #expect(try await Self.documentCount(client) == 0)
            let jobs = try await client.get("/v1/jobs")
            #expect((jobs.json["jobs"] as? [Any])?.isEmpty == true, "\(jobs.text)")
            let staging = (try? FileManager.default.contentsOfDirectory(atPath: server.store + "/.pdfgate/staging")) ?? []
            #expect(staging.filter { $0.hasPrefix("incoming-") }.isEmpty, "\(staging)")
        }
    }
}
