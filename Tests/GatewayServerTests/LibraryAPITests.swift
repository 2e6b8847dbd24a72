import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// DESIGN §3.2: documents and folders through the same library code as the CLI (through the
/// router in-process), plus the operational endpoints and the per-owner limits (over HTTP).
@Suite("Library API, operations and limits over HTTP")
struct LibraryAPITests {
    @Test("import, content with ETag and Range, thumbnail, rename/move with conflicts, folders CRUD")
    func documentsAndFolders() async throws {
        // Through the router in-process: none of this needs a socket.
        let gateway = try await InProcessGateway()
        let root = gateway.server.assembly.library.paths.root
        let original = try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("many-pages.pdf")))
        let expectedPages = try await pdfinfoPageCount(Fixtures.pdf("many-pages.pdf"))
        try await gateway.run { client in
            // Multipart import, parsed as a stream.
            let form = try FormPart.encode([
                .file("file", path: Fixtures.pdf("many-pages.pdf")), .text("folder", "Books/Novels"), .text("name", "Saga"),
            ])
            let imported = try await client.send(.post, "/v1/documents", bytes: form.bytes, contentType: form.contentType)
            #expect(imported.status == .created, "\(imported.json)")
            let id = try #require(imported.json["id"] as? String)
            #expect(imported.json["path"] as? String == "default/Books/Novels/Saga.pdf")
            #expect(imported.json["page_count"] as? Int == expectedPages)
            // Not a PDF: refused with the inspector's reason, nothing filed.
            let notAPDF = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("not-a-pdf.pdf"))))
            let junk = try await client.send(.post, "/v1/documents?filename=junk.pdf", bytes: notAPDF)
            #expect(junk.status == .unprocessableContent, "\(junk.json)")

            // Content: the bytes, an ETag that revalidates, and ranges.
            let content = try await client.execute(uri: "/v1/documents/\(id)/content", method: .get)
            #expect(content.status == .ok && Data(content.body.readableBytesView) == original)
            let etag = try #require(content.headers[.eTag])
            #expect(try await client.execute(uri: "/v1/documents/\(id)/content", method: .get, headers: [.ifNoneMatch: etag]).status == .notModified)
            let part = try await client.execute(uri: "/v1/documents/\(id)/content", method: .get, headers: [.range: "bytes=10-19"])
            #expect(part.status == .partialContent && Data(part.body.readableBytesView) == original.subdata(in: 10..<20))
            #expect(part.headers[.contentRange] == "bytes 10-19/\(original.count)")
            let beyond = try await client.execute(uri: "/v1/documents/\(id)/content", method: .get, headers: [.range: "bytes=\(original.count + 5)-"])
            #expect(beyond.status == .rangeNotSatisfiable)

            // Thumbnail: a real PNG of the requested width.
            let thumbnail = Array(try await client.execute(uri: "/v1/documents/\(id)/thumbnail?width=120", method: .get).body.readableBytesView)
            #expect(thumbnail.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let width = thumbnail.count > 24 ? thumbnail[16..<20].reduce(0) { $0 << 8 | Int($1) } : 0
            #expect(width == 120)

            // A second document with the same name elsewhere, then a move onto the clash.
            let onePage = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            let second = try await client.send(.post, "/v1/documents?folder=Inbox&name=Saga", bytes: onePage, contentType: "application/pdf")
            let secondID = try #require(second.json["id"] as? String)
            let novels = try #require(imported.json["folder_id"] as? String)
            let clash = try await client.send(.patch, "/v1/documents/\(secondID)", json: ["folder_id": novels])
            #expect(clash.status == .conflict && clash.error.code == "name_conflict", "\(clash.json)")
            let renamed = try await client.send(.patch, "/v1/documents/\(secondID)?on_conflict=rename", json: ["folder_id": novels])
            #expect(renamed.status == .ok && renamed.json["name"] as? String == "Saga 01" && renamed.json["id"] as? String == secondID)
            let toRoot = try await client.send(.patch, "/v1/documents/\(secondID)", json: ["folder_id": NSNull(), "name": "Loose"])
            #expect(toRoot.json["path"] as? String == "default/Loose.pdf" && toRoot.json["id"] as? String == secondID)

            // Listing: by folder, recursive, sorted, searched, paged.
            let listed = try await client.send(.get, "/v1/documents?folder=Books&recursive=true&sort=-page_count&limit=1")
            #expect((listed.json["documents"] as? [[String: Any]])?.first?["id"] as? String == id)
            let searched = try await client.send(.get, "/v1/documents?recursive=true&q=loo*")
            #expect((searched.json["documents"] as? [[String: Any]])?.map { $0["id"] as? String } == [secondID])
            #expect(try await client.send(.get, "/v1/documents?sort=colour").status == .badRequest)

            // Folders: create with parents, rename, move, refuse to delete non-empty, delete recursively.
            let folder = try await client.post("/v1/folders", json: ["path": "Archive/2025/Q4"])
            #expect(folder.status == .created && folder.json["path"] as? String == "Archive/2025/Q4")
            let folders = try #require(try await client.send(.get, "/v1/folders").json["folders"] as? [[String: Any]])
            let booksID = try #require(folders.first { $0["name"] as? String == "Books" }?["id"] as? String)
            let moved = try await client.send(
                .patch,
                "/v1/folders/\(booksID)",
                json: ["name": "Library", "parent_id": try #require(folder.json["id"] as? String)]
            )
            #expect(moved.json["path"] as? String == "Archive/2025/Q4/Library" && moved.json["id"] as? String == booksID)
            #expect(try await client.send(.get, "/v1/documents/\(id)").json["path"] as? String == "default/Archive/2025/Q4/Library/Novels/Saga.pdf")
            let notEmpty = try await client.send(.delete, "/v1/folders/\(booksID)")
            #expect(notEmpty.status == .conflict && notEmpty.error.code == "folder_not_empty")
            #expect(try await client.send(.delete, "/v1/folders/\(booksID)?recursive=true").status == .noContent)
            #expect(try await client.send(.get, "/v1/documents/\(id)").status == .notFound)
            #expect(try await client.send(.delete, "/v1/documents/\(secondID)").status == .noContent)
            #expect(!FileManager.default.fileExists(atPath: root + "/default/Loose.pdf"))
        }
    }

    /// One binary: a gateway whose helpers cannot start (the inspector's worker and the
    /// sandbox's launcher are `pdfgate` itself) is not ready, and says which and why.
    @Test func readyzFailsWhenTheHelpersCannotStart() async throws {
        try await using(await ServerProcess(environment: ["PDFGATE_EXECUTABLE": "/nonexistent/pdfgate"])) { server in
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
    }

    @Test("readyz names a backend that is down; metrics count jobs; creation limits answer 429 with Retry-After")
    func operationsAndLimits() async throws {
        try await using(await ServerProcess(arguments: ["--routes", "URL_TO_PDF=gotenberg=http://127.0.0.1:9", "--jobs-per-minute", "3"])) { server in
            let client = APIClient(base: server.baseURL)
            #expect(try await client.get("/healthz").status == 200)
            let ready = try await client.get("/readyz")
            #expect(ready.status == 503 && ready.string("status") == "not_ready")
            #expect(((ready.json["checks"] as? [String: Any])?["gotenberg"] as? [String: Any])?["ok"] as? Bool == false)
            #expect(((ready.json["checks"] as? [String: Any])?["store"] as? [String: Any])?["ok"] as? Bool == true)
            // Office, ebook, scan and PDF jobs stay local: their tools are checked (Tesseract with PDF
            // operations, for `ocr`), and no answer shows a path.
            let checks = Set(((ready.json["checks"] as? [String: Any]) ?? [:]).keys)
            let local = ["local.sandbox", "local.libreoffice", "local.chromium", "local.calibre", "local.pdf", "local.scan", "local.tesseract"]
            #expect(checks == Set(["store", "inspector", "gotenberg"] + local), "\(checks)")
            // The inspector read a PDF, the converters' sandbox and tools started: only Gotenberg is down.
            for name in ["inspector"] + local {
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
}
