import Foundation
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

@testable import GatewayServer

/// The job protocol's answers that need no socket, through the router with the engine running:
/// an `Idempotency-Key` replayed and reused, the raw and multipart one-shot creates converted
/// and filed with their options, the multipart caps, a URL job's first answer, and a succeeded
/// job whose document was deleted since.
/// Event streams and a key held by a body still streaming stay on real sockets.
@Suite("Job protocol through the router")
struct JobRouterTests {
    @Test("Idempotency-Key: same body → same job, other body → 422; raw and multipart one-shot creates are filed")
    func idempotencyAndOneShot() async throws {
        let gateway = try await InProcessGateway()
        let engine = gateway.engine
        try await gateway.run(converting: true) { client in
            let body = ["type": "DOC_TO_PDF", "original_filename": "a.docx"]
            let first = try await client.post("/v1/jobs", json: body, headers: [.idempotencyKey: "k-1"])
            let second = try await client.post("/v1/jobs", json: body, headers: [.idempotencyKey: "k-1"])
            #expect(first.status == .created && second.status == .ok)
            let firstID = first.json["job_id"] as? String
            #expect(firstID != nil && firstID == second.json["job_id"] as? String)
            let other = try await client.post(
                "/v1/jobs",
                json: ["type": "DOC_TO_PDF", "original_filename": "b.docx"],
                headers: [.idempotencyKey: "k-1"]
            )
            #expect(other.status == .unprocessableContent && other.error.code == "idempotency_key_reused")

            // One request carries the file: created, uploaded and submitted at once.
            let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.office("sample.rtf"))))
            let oneShot = try await client.execute(
                uri: "/v1/jobs?folder=Reports",
                method: .post,
                headers: [.contentType: "application/octet-stream", .contentDisposition: "attachment; filename=\"Quarterly report.rtf\""],
                body: ByteBuffer(bytes: file)
            )
            #expect(oneShot.status == .created, "\(oneShot.json)")
            let job = try await engine.finished(try #require(oneShot.json["job_id"] as? String))
            #expect(job.state.status == .succeeded, "\(job.state)")
            let filed = try await client.execute(uri: "/v1/jobs/\(job.id.uuidString.lowercased())", method: .get).json
            #expect((filed["document"] as? [String: Any])?["path"] as? String == "default/Reports/Quarterly report.pdf", "\(filed)")

            // The same as multipart/form-data: a `file` part and text fields, parsed as a stream.
            let form = try FormPart.encode([
                .text("folder", "Forms"), .file("file", path: Fixtures.office("sample.odt")), .text("name", "From a form"),
            ])
            let formed = try await client.execute(
                uri: "/v1/jobs",
                method: .post,
                headers: [.contentType: form.contentType],
                body: ByteBuffer(bytes: form.bytes)
            )
            #expect(formed.status == .created && formed.json["status"] as? String == "QUEUED", "\(formed.json)")
            let formJob = try await engine.finished(try #require(formed.json["job_id"] as? String))
            let formFiled = try await client.execute(uri: "/v1/jobs/\(formJob.id.uuidString.lowercased())", method: .get).json
            #expect((formFiled["document"] as? [String: Any])?["path"] as? String == "default/Forms/From a form.pdf", "\(formFiled)")

            // A bad request names what is wrong.
            let bad = try await client.post("/v1/jobs", json: ["type": "PNG_TO_PDF"])
            #expect(bad.status == .badRequest && bad.error.code == "invalid_type")
            #expect(bad.error.message?.contains("URL_TO_PDF") == true, "\(bad.json)")
        }
    }

    @Test("POST /v1/jobs with a URL answers {job_id, status: QUEUED} and nothing to upload")
    func urlJobIsQueued() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let created = try await client.post("/v1/jobs", json: ["type": "URL_TO_PDF", "url": "https://example.com/page"])
            #expect(created.status == .created, "\(created.json)")
            #expect(created.json["status"] as? String == "QUEUED", "\(created.json)")
            let id = try #require(created.json["job_id"] as? String)
            #expect(UUID(uuidString: id) != nil && id == id.lowercased(), "a lowercase UUID: \(id)")
            #expect(created.json["upload"] == nil, "a URL job has nothing to upload")
            #expect(try await client.execute(uri: "/v1/jobs/\(id)", method: .delete).status == .ok)
        }
    }

    @Test("a succeeded job whose document was deleted keeps its download_url, which answers 410 document_deleted")
    func deletedDocumentOfSucceededJob() async throws {
        let gateway = try await InProcessGateway()
        let engine = gateway.engine
        try await gateway.run(converting: true) { client in
            let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.office("sample.rtf"))))
            let created = try await client.send(.post, "/v1/jobs?filename=sample.rtf", bytes: file)
            let id = try #require(created.json["job_id"] as? String, "\(created.json)")
            let finished = try await engine.finished(id)
            #expect(finished.state.status == .succeeded, "\(finished.state)")
            let document = try #require(finished.state.documentID)
            #expect(try await client.send(.delete, "/v1/documents/\(document.uuidString.lowercased())").status == .noContent)

            let job = try await client.send(.get, "/v1/jobs/\(id)")
            #expect(job.json["status"] as? String == "SUCCEEDED")
            #expect(job.json["document"] == nil, "the document is gone: \(job.json)")
            let url = try #require(job.json["download_url"] as? String, "SUCCEEDED always carries download_url: \(job.json)")
            let listed = (try await client.send(.get, "/v1/jobs").json["jobs"] as? [[String: Any]])?.first { $0["job_id"] as? String == id }
            #expect(listed?["download_url"] is String, "lists too")

            let gone = try await client.send(.get, Self.pathAndQuery(url))
            #expect(gone.status == .gone && gone.error.code == "document_deleted", "\(gone.status) \(gone.json)")
            #expect(gone.error.message?.contains("deleted from the library after the job succeeded") == true, "\(gone.json)")

            // A deleted document that no job made is simply not found.
            let pdf = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
            let imported = try await client.send(.post, "/v1/documents?name=loose", bytes: pdf, contentType: "application/pdf")
            let looseURL = try #require(imported.json["download_url"] as? String, "\(imported.json)")
            let looseID = try #require(imported.json["id"] as? String)
            #expect(try await client.send(.delete, "/v1/documents/\(looseID)").status == .noContent)
            let missing = try await client.send(.get, Self.pathAndQuery(looseURL))
            #expect(missing.status == .notFound && missing.error.code == "document_not_found", "\(missing.json)")
        }
    }

    @Test("one-shot creates carry conversion options, as query fields or as an options form part")
    func oneShotOptionsReachTheConverter() async throws {
        let gateway = try await InProcessGateway()
        let engine = gateway.engine
        try await gateway.run(converting: true) { client in
            let html = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.office("sample.html"))))
            // Raw body: options as query parameters. 4 × 6 in is 288 × 432 pt.
            let raw = try await client.send(
                .post,
                "/v1/jobs?filename=card.html&paper_width=4&paper_height=6&margin=0.2",
                bytes: html,
                contentType: "text/html"
            )
            #expect(raw.status == .created, "\(raw.json)")
            #expect((raw.json["options"] as? [String: Any])?["paper_width"] as? Double == 4, "the job shows its options: \(raw.json)")
            // Multipart: the same JSON object as the JSON create, in an `options` part.
            let form = try FormPart.encode([
                .text("options", #"{"paper_width": 6, "paper_height": 4}"#), .file("file", path: Fixtures.office("sample.html")),
            ])
            let formed = try await client.send(.post, "/v1/jobs", bytes: form.bytes, contentType: form.contentType)
            #expect(formed.status == .created, "\(formed.json)")
            for (answer, size) in [(raw, (288.0, 432.0)), (formed, (432.0, 288.0))] {
                let id = try #require(answer.json["job_id"] as? String)
                #expect(try await engine.finished(id).state.status == .succeeded)
                let job = try await client.send(.get, "/v1/jobs/\(id)").json
                let metadata = (job["document"] as? [String: Any])?["metadata"] as? [String: Any]
                let width = try #require(metadata?["page_width"] as? Double, "\(job)")
                let height = try #require(metadata?["page_height"] as? Double)
                #expect(abs(width - size.0) < 1 && abs(height - size.1) < 1, "page is \(width) × \(height) pt, asked \(size)")
            }

            let badOption = try await client.send(.post, "/v1/jobs?filename=card.html&landscape=sideways", bytes: html, contentType: "text/html")
            #expect(badOption.status == .badRequest && badOption.error.code == "invalid_options", "\(badOption.json)")
            #expect(badOption.error.message?.contains("landscape") == true)
        }
    }

    @Test("a multipart create with too many text fields, or too many bytes of them, is refused with 413 naming the limit")
    func multipartFieldCaps() async throws {
        let gateway = try await InProcessGateway()
        try await gateway.run { client in
            let file = FormPart.file("file", path: Fixtures.office("sample.rtf"))
            func create(_ parts: [FormPart]) async throws -> TestResponse {
                let form = try FormPart.encode(parts)
                return try await client.send(.post, "/v1/jobs", bytes: form.bytes, contentType: form.contentType)
            }
            let tooMany = try await create((0..<129).map { FormPart.text("extra_\($0)", "x") } + [file])
            #expect(tooMany.status == .contentTooLarge && tooMany.error.code == "too_many_fields", "\(tooMany.json)")
            #expect(tooMany.error.message?.contains("128") == true, "names the limit: \(tooMany.json)")

            // Each field under the 64 KiB cap of one field, together over 256 KiB.
            let tooLarge = try await create((0..<5).map { FormPart.text("note_\($0)", String(repeating: "y", count: 60 * 1024)) } + [file])
            #expect(tooLarge.status == .contentTooLarge && tooLarge.error.code == "fields_too_large", "\(tooLarge.json)")
            #expect(tooLarge.error.message?.contains("256 KiB") == true, "names the limit: \(tooLarge.json)")

            // Up to the caps is fine.
            let accepted = try await create((0..<31).map { FormPart.text("extra_\($0)", "x") } + [.text("name", "Fine"), file])
            #expect(accepted.status == .created, "\(accepted.json)")
            let jobs = (try await client.send(.get, "/v1/jobs").json["jobs"] as? [Any]) ?? []
            #expect(jobs.count == 1, "only the form within the caps made a job")
        }
    }

    /// The router is given paths; a signed URL in an answer is absolute.
    static func pathAndQuery(_ url: String) throws -> String {
        let components = try #require(URLComponents(string: url))
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }
}
