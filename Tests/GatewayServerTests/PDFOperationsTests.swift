import Foundation
import GatewayHTTPClient
import GatewayJobModel
import GatewayTestSupport
import Testing

/// The PDF operations on library documents, through a real `pdfgate serve` with the real
/// qpdf and Ghostscript, every result read back with `pdfinfo`, `qpdf` and `pdftotext`.
@Suite("PDF operations on library documents", .serialized)
struct PDFOperationsTests {
    /// A server with two documents filed: twelve pages and one page.
    static func library() async throws -> (ServerProcess, APIClient, twelve: String, one: String) {
        let server = try await ServerProcess()
        let client = APIClient(base: server.baseURL)
        var ids: [String] = []
        for name in ["many-pages.pdf", "one-page.pdf"] {
            let created = try await oneShot(client, "/v1/jobs?filename=\(name)", Fixtures.pdf(name))
            let job = try await finished(client, created)
            ids.append(try #require(job.string("document_id"), "\(name): \(job.text)"))
        }
        return (server, client, ids[0], ids[1])
    }

    /// A one-shot create: `file` as the raw body of `POST path`.
    static func oneShot(_ client: APIClient, _ path: String, _ file: String) async throws -> APIClient.Answer {
        try await client.send("POST", path, body: .file(path: file), headers: [("Content-Type", "application/octet-stream")])
    }

    /// `POST /v1/documents/{id}/operations` with `body`, followed until the job ends.
    static func operations(_ client: APIClient, on id: String, _ body: [String: Any]) async throws -> APIClient.Answer {
        try await finished(client, try await client.post("/v1/documents/\(id)/operations", json: body))
    }

    /// Polls the job of `created` until it ends.
    static func finished(_ client: APIClient, _ created: APIClient.Answer) async throws -> APIClient.Answer {
        let id = try #require(created.string("job_id"), "create: \(created.status) \(created.text)")
        return try await client.ended(id, within: .seconds(30), poll: .milliseconds(50))
    }

    /// The filed PDF of a finished job, by its path in the store.
    static func file(_ server: ServerProcess, _ document: [String: Any]?) throws -> String {
        server.store + "/" + (try #require(document?["path"] as? String))
    }

    static func pdfinfo(_ path: String, _ extra: [String] = []) async throws -> String {
        try await run(try which("pdfinfo"), extra + [path]).stdout
    }

    /// From `pdfinfo -f … -l …`: whether page `page` shows wider than tall.
    static func isLandscape(_ info: String, page: Int) -> Bool {
        let lines = info.split(separator: "\n")
        let label = "Page " + String(repeating: " ", count: max(0, 4 - String(page).count)) + "\(page) "
        func numbers(_ key: String) -> [Double] {
            lines.first { $0.hasPrefix(label + key) }?.dropFirst(label.count + key.count).split(separator: " ").compactMap { Double($0) } ?? []
        }
        let size = numbers("size:")
        let rotation = Int(numbers("rot:").first ?? 0)
        guard size.count >= 2 else { return false }
        return (size[0] > size[1]) != (rotation % 180 == 90)
    }

    @Test func mergeMakesOneDocumentWithEveryPageInOrder() async throws {
        let (server, client, twelve, one) = try await Self.library()
        try await using(server) { server in
            let job = try await Self.finished(
                client,
                try await client.post("/v1/documents/merge", json: ["documents": [one, twelve], "name": "Both"])
            )
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            let document = job.json["document"] as? [String: Any]
            #expect(document?["name"] as? String == "Both")
            let path = try Self.file(server, document)
            #expect(try await pdfinfoPageCount(path) == 13)
            // The one-page document comes first: its text is on page 1.
            let first = try await run(try which("pdftotext"), ["-f", "1", "-l", "1", path, "-"]).stdout
            let alone = try await run(try which("pdftotext"), [Fixtures.pdf("one-page.pdf"), "-"]).stdout
            #expect(first.trimmingCharacters(in: .whitespacesAndNewlines) == alone.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    @Test func splitFilesNumberedPartsBesideTheOriginal() async throws {
        let (server, client, twelve, _) = try await Self.library()
        try await using(server) { server in
            let job = try await Self.finished(client, try await client.post("/v1/documents/\(twelve)/split", json: ["every": 5]))
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            let parts = try #require(job.json["documents"] as? [[String: Any]], "\(job.text)")
            #expect(parts.map { $0["name"] as? String } == ["many-pages 01", "many-pages 02", "many-pages 03"])
            var counts: [Int?] = []
            for part in parts { counts.append(try await pdfinfoPageCount(try Self.file(server, part))) }
            #expect(counts == [5, 5, 2])
            let ranges = try await Self.finished(client, try await client.post("/v1/documents/\(twelve)/split", json: ["ranges": ["2-3", "12"]]))
            let rangeParts = try #require(ranges.json["documents"] as? [[String: Any]], "\(ranges.text)")
            var rangeCounts: [Int?] = []
            for part in rangeParts { rangeCounts.append(try await pdfinfoPageCount(try Self.file(server, part))) }
            #expect(rangeCounts == [2, 1])
            // The original is untouched.
            #expect(try await pdfinfoPageCount(server.store + "/default/many-pages.pdf") == 12)
        }
    }

    @Test func pdfaMetadataRotateAndOptimizeShowInTheResult() async throws {
        let (server, client, twelve, _) = try await Self.library()
        try await using(server) { server in
            let job = try await Self.operations(
                client,
                on: twelve,
                [
                    "name": "Archive",
                    "operations": [
                        ["op": "rotate", "angle": 90, "pages": "1-2"],
                        ["op": "metadata", "title": "Quarterly Ünïcode", "author": "Ann"],
                        ["op": "optimize", "images": "ebook"],
                        ["op": "pdfa", "part": "2b"],
                    ],
                ]
            )
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            let document = job.json["document"] as? [String: Any]
            let metadata = document?["metadata"] as? [String: Any]
            #expect(metadata?["title"] as? String == "Quarterly Ünïcode")
            #expect(metadata?["pdfa"] as? String == "2B", "\(job.text)")
            let path = try Self.file(server, document)
            let info = try await Self.pdfinfo(path, ["-f", "1", "-l", "3"])
            #expect(info.contains("Author:          Ann"))
            // qpdf sets /Rotate; Ghostscript may bake it into a landscape page instead: either way
            // pages 1-2 now lie on their side and page 3 does not.
            #expect(Self.isLandscape(info, page: 1) && Self.isLandscape(info, page: 2) && !Self.isLandscape(info, page: 3), "\(info)")
            let xmp = try await run(try which("pdfinfo"), ["-meta", path]).stdout
            #expect(xmp.contains("pdfaid:part='2'") || xmp.contains("pdfaid:part=\"2\"") || xmp.contains("<pdfaid:part>2"), "\(xmp)")
            // Ghostscript drops a title beyond ASCII for PDF/A; it is put back in XMP as in /Info.
            #expect(xmp.contains("Quarterly Ünïcode"), "\(xmp)")
            let check = try await run(try which("qpdf"), ["--check", path])
            #expect(check.status == 0, "\(check.stdout)")
            #expect(job.json["input_size"] as? Int != nil)
            // The original keeps its pages, title and id.
            #expect(try await Self.pdfinfo(server.store + "/default/many-pages.pdf").contains("Title:           Twelve Pages"))
        }
    }

    /// Without linearizing, the input itself competes: an optimize never makes a file bigger,
    /// and one whose streams are stored uncompressed comes out much smaller.
    @Test func anOptimizeWithoutLinearizingNeverGrowsTheFile() async throws {
        let (server, client, twelve, _) = try await Self.library()
        try await using(server) { server in
            let job = try await Self.operations(client, on: twelve, ["operations": [["op": "optimize", "images": "printer", "linearize": false]]])
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            let size = try #require((job.json["document"] as? [String: Any])?["size"] as? Int)
            let before = try #require(job.json["input_size"] as? Int)
            #expect(size <= before, "optimized \(size) bytes from \(before)")

            let scratch = TemporaryDirectory()
            let loose = scratch.file("loose.pdf")
            let unpacked = try await run(
                try which("qpdf"),
                ["--stream-data=uncompress", "--object-streams=disable", Fixtures.pdf("many-pages.pdf"), loose]
            )
            #expect(unpacked.status == 0, "\(unpacked.stderr)")
            let imported = try await client.send(
                "POST",
                "/v1/documents?name=loose",
                body: .file(path: loose),
                headers: [("Content-Type", "application/pdf")]
            )
            let id = try #require(imported.string("id"), "\(imported.text)")
            let packed = try await Self.operations(client, on: id, ["operations": [["op": "optimize", "images": "keep", "linearize": false]]])
            let packedSize = try #require((packed.json["document"] as? [String: Any])?["size"] as? Int, "\(packed.text)")
            let looseSize = try #require(packed.json["input_size"] as? Int)
            #expect(packedSize * 2 < looseSize, "uncompressed \(looseSize) bytes → \(packedSize)")
        }
    }

    /// Level text (`angle` 0): pdftotext reads a slanted line letter by letter.
    @Test func aWatermarkLiesOnTheChosenPagesOnly() async throws {
        let (server, client, twelve, _) = try await Self.library()
        try await using(server) { server in
            let job = try await Self.operations(
                client,
                on: twelve,
                ["operations": [["op": "watermark", "text": "ENTWURF Ünïcode", "pages": "2-3", "opacity": 0.3, "angle": 0]]]
            )
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            let path = try Self.file(server, job.json["document"] as? [String: Any])
            func text(_ page: Int) async throws -> String {
                try await run(try which("pdftotext"), ["-f", "\(page)", "-l", "\(page)", path, "-"]).stdout
            }
            #expect(try await text(2).contains("ENTWURF Ünïcode"))
            #expect(try await text(3).contains("ENTWURF Ünïcode"))
            let (first, fourth) = (try await text(1), try await text(4))
            #expect(!first.contains("ENTWURF") && !fourth.contains("ENTWURF"))
            #expect(try await pdfinfoPageCount(path) == 12)
        }
    }

    /// A PNG watermark: its image on the chosen pages only (pdfimages lists it there), the job
    /// and its answers carrying the image's hash, never its bytes.
    @Test func anImageWatermarkLiesOnTheChosenPagesOnly() async throws {
        let (server, client, twelve, _) = try await Self.library()
        try await using(server) { server in
            let png = try Data(contentsOf: URL(fileURLWithPath: Fixtures.root + "/web-set/logo.png"))
            let created = try await client.post(
                "/v1/documents/\(twelve)/operations",
                json: ["operations": [["op": "watermark", "image": png.base64EncodedString(), "pages": "3-4", "scale": 0.4, "opacity": 0.5]]]
            )
            #expect(created.status == 201, "\(created.text)")
            #expect(!created.text.contains(png.base64EncodedString().prefix(64)), "the bytes stay out of the answer")
            let job = try await Self.finished(client, created)
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            let operation = (job.json["operations"] as? [[String: Any]])?.first
            #expect(operation?["image_bytes"] as? Int == png.count && (operation?["image_sha256"] as? String)?.count == 64, "\(job.text)")
            let path = try Self.file(server, job.json["document"] as? [String: Any])
            let listed = try await run(try which("pdfimages"), ["-list", path]).stdout
            // "page num type width height …": the image rows, by page.
            let pages = listed.split(separator: "\n").dropFirst(2).compactMap { Int($0.split(separator: " ").first ?? "") }
            #expect(Set(pages) == [3, 4], "\(listed)")
            #expect(try await pdfinfoPageCount(path) == 12)

            let notPNG = try await client.post(
                "/v1/documents/\(twelve)/operations",
                json: ["operations": [["op": "watermark", "image": Data("GIF89a....".utf8).base64EncodedString()]]]
            )
            #expect(notPNG.status == 400 && notPNG.string("error") == "invalid_operation", "\(notPNG.text)")
            #expect(notPNG.string("error_message")?.contains("PNG") == true)
        }
    }

    @Test func replaceOriginalKeepsTheDocumentsID() async throws {
        let (server, client, twelve, _) = try await Self.library()
        try await using(server) { server in
            let job = try await Self.operations(client, on: twelve, ["operations": [["op": "rotate", "angle": 180]], "replace_original": true])
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            #expect(job.string("document_id") == twelve)
            let documents = try await client.get("/v1/documents")
            #expect((documents.json["documents"] as? [Any])?.count == 2, "no new document: \(documents.text)")
            #expect(try await Self.pdfinfo(server.store + "/default/many-pages.pdf").contains("Page rot:        180"))
        }
    }

    @Test func anUploadedEncryptedPDFOpensWithItsPasswordAndAConversionGetsOperations() async throws {
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            // A one-shot PDF upload is PDF_TO_PDF: here decrypted with the password it came with.
            let locked = try await Self.finished(
                client,
                try await Self.oneShot(
                    client,
                    "/v1/jobs?filename=encrypted.pdf&password=secret&operations=%5B%7B%22op%22%3A%22rotate%22%2C%22angle%22%3A270%7D%5D",
                    Fixtures.pdf("encrypted.pdf")
                )
            )
            #expect(locked.string("type") == "PDF_TO_PDF" && locked.string("status") == "SUCCEEDED", "\(locked.text)")
            let opened = try await Self.pdfinfo(try Self.file(server, locked.json["document"] as? [String: Any]))
            #expect(opened.contains("Encrypted:       no") && opened.contains("Page rot:        270"), "\(opened)")
            #expect(!server.log.contains("secret&") && !locked.text.contains("secret"))

            // Without it the job fails with a code a client can act on, and files nothing.
            let refused = try await Self.finished(
                client,
                try await Self.oneShot(client, "/v1/jobs?filename=encrypted.pdf", Fixtures.pdf("encrypted.pdf"))
            )
            #expect(refused.string("status") == "FAILED" && refused.string("error") == "wrong_password", "\(refused.text)")

            // Any conversion can end in operations: an office file, split page by page.
            let converted = try await Self.finished(
                client,
                try await Self.oneShot(
                    client,
                    "/v1/jobs?filename=sample.docx&operations=%5B%7B%22op%22%3A%22split%22%2C%22every%22%3A1%7D%5D",
                    Fixtures.office("sample.docx")
                )
            )
            #expect(converted.string("status") == "SUCCEEDED", "\(converted.text)")
            // sample.docx is two pages (Fixtures/expected-conversions.json).
            let parts = (converted.json["documents"] as? [[String: Any]]) ?? []
            #expect(parts.map { $0["name"] as? String } == ["sample 01", "sample 02"], "\(converted.text)")
            #expect(parts.allSatisfy { $0["page_count"] as? Int == 1 })
            let documents = try await client.get("/v1/documents")
            #expect((documents.json["documents"] as? [Any])?.count == 3, "the decrypted upload and two parts: \(documents.text)")
        }
    }

    @Test(arguments: [
        (#"{"operations": [{"op": "rotate", "angle": 45}]}"#, 400, "invalid_operation"),
        (#"{"operations": [{"op": "rotate", "angle": 90, "pages": "13"}]}"#, 422, "page_range_out_of_bounds"),
        (#"{"operations": [{"op": "spin"}]}"#, 400, "invalid_operation"),
        (#"{"operations": [{"op": "rotate", "angle": 90, "colour": "red"}]}"#, 400, "invalid_operation"),
        (#"{"operations": [{"op": "encrypt", "user_password": "a"}, {"op": "flatten"}]}"#, 422, "contradictory_operations"),
        (#"{"operations": [{"op": "pdfa"}, {"op": "optimize"}]}"#, 422, "contradictory_operations"),
        (#"{"operations": [{"op": "split", "every": 2}], "replace_original": true}"#, 422, "contradictory_options"),
        (#"{"operations": [{"op": "encrypt"}]}"#, 400, "invalid_operation"),
    ])
    func badOperationsAreRefusedAndChangeNothing(body: String, status: Int, code: String) async throws {
        let (server, client, twelve, _) = try await Self.library()
        try await using(server) { server in
            let answer = try await client.post("/v1/documents/\(twelve)/operations", json: try JSONSerialization.jsonObject(with: Data(body.utf8)))
            #expect(answer.status == status && answer.string("error") == code, "\(body): \(answer.text)")
            #expect(!(answer.string("error_message") ?? "").isEmpty)
            let jobs = try await client.get("/v1/jobs")
            #expect((jobs.json["jobs"] as? [Any])?.count == 2, "only the two imports: \(jobs.text)")
            #expect(try await pdfinfoPageCount(server.store + "/default/many-pages.pdf") == 12)
        }
    }
}
