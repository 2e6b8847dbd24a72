import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

/// DESIGN §3.2 over HTTP: documents and folders through the same library code as the CLI,
/// plus the operational endpoints and the per-owner limits.
@Suite("Library API, operations and limits over HTTP")
struct LibraryAPITests {
    @Test("import, content with ETag and Range, thumbnail, rename/move with conflicts, folders CRUD")
    func documentsAndFolders() async throws {
        let server = try await ServerProcess()
        defer { Task { await server.stop() } }
        let client = APIClient(base: server.baseURL)

        // Multipart import, parsed as a stream.
        let imported = try await client.send(
            "POST",
            "/v1/documents",
            body: .multipart([.file("file", path: Fixtures.pdf("many-pages.pdf")), .text("folder", "Books/Novels"), .text("name", "Saga")])
        )
        #expect(imported.status == 201, "\(imported.text)")
        let id = try #require(imported.string("id"))
        #expect(imported.string("path") == "default/Books/Novels/Saga.pdf")
        let pages = imported.json["page_count"] as? Int
        let expectedPages = try await pdfinfoPageCount(Fixtures.pdf("many-pages.pdf"))
        #expect(pages != nil && pages == expectedPages)
        // Not a PDF: refused with the inspector's reason, nothing filed.
        let junk = try await client.send("POST", "/v1/documents?filename=junk.pdf", body: .file(path: Fixtures.pdf("not-a-pdf.pdf")))
        #expect(junk.status == 422, "\(junk.text)")

        // Content: the bytes, an ETag that revalidates, and ranges.
        let content = try await client.get("/v1/documents/\(id)/content")
        let original = try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("many-pages.pdf")))
        #expect(content.status == 200 && Data(content.body) == original)
        let etag = try #require(content.headers["ETag"])
        #expect(try await client.get("/v1/documents/\(id)/content", headers: [("If-None-Match", etag)]).status == 304)
        let part = try await client.get("/v1/documents/\(id)/content", headers: [("Range", "bytes=10-19")])
        #expect(part.status == 206 && Data(part.body) == original.subdata(in: 10..<20))
        #expect(part.headers["Content-Range"] == "bytes 10-19/\(original.count)")
        #expect(try await client.get("/v1/documents/\(id)/content", headers: [("Range", "bytes=\(original.count + 5)-")]).status == 416)

        // Thumbnail: a real PNG of the requested width.
        let thumbnail = try await client.get("/v1/documents/\(id)/thumbnail?width=120")
        #expect(thumbnail.status == 200 && thumbnail.body.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        let width = thumbnail.body.count > 24 ? thumbnail.body[16..<20].reduce(0) { $0 << 8 | Int($1) } : 0
        #expect(width == 120)

        // A second document with the same name elsewhere, then a move onto the clash.
        let second = try await client.send(
            "POST",
            "/v1/documents?folder=Inbox&name=Saga",
            body: .file(path: Fixtures.pdf("one-page.pdf")),
            headers: [("Content-Type", "application/pdf")]
        )
        let secondID = try #require(second.string("id"))
        let novels = try #require(imported.string("folder_id"))
        let clash = try await client.send("PATCH", "/v1/documents/\(secondID)", json: ["folder_id": novels])
        #expect(clash.status == 409 && clash.string("error") == "name_conflict", "\(clash.text)")
        let renamed = try await client.send("PATCH", "/v1/documents/\(secondID)?on_conflict=rename", json: ["folder_id": novels])
        #expect(renamed.status == 200 && renamed.string("name") == "Saga 01" && renamed.string("id") == secondID)
        let toRoot = try await client.send("PATCH", "/v1/documents/\(secondID)", json: ["folder_id": NSNull(), "name": "Loose"])
        #expect(toRoot.string("path") == "default/Loose.pdf" && toRoot.string("id") == secondID)

        // Listing: by folder, recursive, sorted, searched, paged.
        let listed = try await client.get("/v1/documents?folder=Books&recursive=true&sort=-page_count&limit=1")
        #expect((listed.json["documents"] as? [[String: Any]])?.first?["id"] as? String == id)
        let searched = try await client.get("/v1/documents?recursive=true&q=loo")
        #expect((searched.json["documents"] as? [[String: Any]])?.map { $0["id"] as? String } == [secondID])
        #expect(try await client.get("/v1/documents?sort=colour").status == 400)

        // Folders: create with parents, rename, move, refuse to delete non-empty, delete recursively.
        let folder = try await client.post("/v1/folders", json: ["path": "Archive/2025/Q4"])
        #expect(folder.status == 201 && folder.string("path") == "Archive/2025/Q4")
        let books = try #require(try await client.get("/v1/folders").json["folders"] as? [[String: Any]]).first { $0["name"] as? String == "Books" }
        let booksID = try #require(books?["id"] as? String)
        let moved = try await client.send("PATCH", "/v1/folders/\(booksID)", json: ["name": "Library", "parent_id": folder.string("id")!])
        #expect(moved.string("path") == "Archive/2025/Q4/Library" && moved.string("id") == booksID)
        #expect(try await client.get("/v1/documents/\(id)").string("path") == "default/Archive/2025/Q4/Library/Novels/Saga.pdf")
        let notEmpty = try await client.send("DELETE", "/v1/folders/\(booksID)")
        #expect(notEmpty.status == 409 && notEmpty.string("error") == "folder_not_empty")
        #expect(try await client.send("DELETE", "/v1/folders/\(booksID)?recursive=true").status == 204)
        #expect(try await client.get("/v1/documents/\(id)").status == 404)
        #expect(try await client.send("DELETE", "/v1/documents/\(secondID)").status == 204)
        #expect(!FileManager.default.fileExists(atPath: server.store + "/default/Loose.pdf"))
        await server.stop()
    }

    /// One binary: a gateway whose helpers cannot start (the inspector's worker and the
    /// sandbox's launcher are `pdfgate` itself) is not ready, and says which and why.
    @Test func readyzFailsWhenTheHelpersCannotStart() async throws {
        let server = try await ServerProcess(environment: ["PDFGATE_EXECUTABLE": "/nonexistent/pdfgate"])
        defer { Task { await server.stop() } }
        let ready = try await APIClient(base: server.baseURL).get("/readyz")
        #expect(ready.status == 503 && ready.string("status") == "not_ready")
        let checks = (ready.json["checks"] as? [String: Any]) ?? [:]
        for name in ["inspector", "local.sandbox"] {
            let check = checks[name] as? [String: Any]
            #expect(check?["ok"] as? Bool == false, "\(name): \(ready.text)")
            #expect((check?["message"] as? String)?.contains("PDFGATE_EXECUTABLE") == true, "\(name): \(ready.text)")
        }
        #expect((checks["store"] as? [String: Any])?["ok"] as? Bool == true)
    }

    @Test("readyz names a backend that is down; metrics count jobs; creation limits answer 429 with Retry-After")
    func operationsAndLimits() async throws {
        let server = try await ServerProcess(arguments: ["--routes", "URL_TO_PDF=gotenberg=http://127.0.0.1:9", "--jobs-per-minute", "3"])
        defer { Task { await server.stop() } }
        let client = APIClient(base: server.baseURL)
        #expect(try await client.get("/healthz").status == 200)
        let ready = try await client.get("/readyz")
        #expect(ready.status == 503 && ready.string("status") == "not_ready")
        #expect(((ready.json["checks"] as? [String: Any])?["gotenberg"] as? [String: Any])?["ok"] as? Bool == false)
        #expect(((ready.json["checks"] as? [String: Any])?["store"] as? [String: Any])?["ok"] as? Bool == true)
        // Office and ebook jobs stay local: their tools are checked, and no answer shows a path.
        let checks = Set(((ready.json["checks"] as? [String: Any]) ?? [:]).keys)
        #expect(
            checks == ["store", "inspector", "gotenberg", "local.sandbox", "local.libreoffice", "local.chromium", "local.calibre"],
            "\(checks)"
        )
        // The inspector read a PDF, the converters' sandbox and tools started: only Gotenberg is down.
        for name in ["inspector", "local.sandbox", "local.libreoffice", "local.chromium", "local.calibre"] {
            #expect(((ready.json["checks"] as? [String: Any])?[name] as? [String: Any])?["ok"] as? Bool == true, "\(name): \(ready.text)")
        }
        #expect(!ready.text.contains(server.store) && !ready.text.contains("/usr/bin"), "\(ready.text)")

        var statuses: [Int] = []
        var retryAfter: String?
        for n in 0..<4 {
            let answer = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "d\(n).docx"])
            statuses.append(answer.status)
            if answer.status == 429 { retryAfter = answer.headers["Retry-After"] }
        }
        #expect(statuses == [201, 201, 201, 429])
        #expect(retryAfter.flatMap(Int.init).map { $0 >= 1 } == true)

        // Cancel one of them; the metrics see the jobs by status.
        let jobs = try await client.get("/v1/jobs?status=CREATED").json["jobs"] as? [[String: Any]]
        let first = try #require(jobs?.first?["job_id"] as? String)
        let cancelled = try await client.send("DELETE", "/v1/jobs/\(first)")
        #expect(cancelled.status == 200 && cancelled.string("status") == "CANCELLED")
        let metrics = try await client.get("/metrics").text
        #expect(metrics.contains(#"pdfgate_jobs{status="CREATED"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"pdfgate_jobs{status="CANCELLED"} 1"#))
        let spec = try await client.get("/openapi.yaml")
        #expect(spec.status == 200 && spec.text.hasPrefix("openapi: 3.1"))
        await server.stop()
    }
}
