import Foundation
import GatewayTestSupport
import Testing

/// The edges of a request's shape: conversion options in a one-shot create, formats no
/// converter reads (415), and a method a path does not have (405).
@Suite("Request shape: one-shot options, 415, 405")
struct RequestShapeTests {
    @Test("one-shot creates carry conversion options, as query fields or as an options form part")
    func oneShotOptionsReachTheConverter() async throws {
        let server = try await ServerProcess()
        let client = APIClient(base: server.baseURL)
        // Raw body: options as query parameters. 4 × 6 in is 288 × 432 pt.
        let raw = try await client.send(
            "POST",
            "/v1/jobs?filename=card.html&paper_width=4&paper_height=6&margin=0.2",
            body: .file(path: Fixtures.office("sample.html")),
            headers: [("Content-Type", "text/html")]
        )
        #expect(raw.status == 201, "\(raw.text)")
        #expect((raw.json["options"] as? [String: Any])?["paper_width"] as? Double == 4, "the job shows its options: \(raw.text)")
        // Multipart: the same JSON object as the JSON create, in an `options` part.
        let form = try await client.send(
            "POST",
            "/v1/jobs",
            body: .multipart([
                .text("options", #"{"paper_width": 6, "paper_height": 4}"#), .file("file", path: Fixtures.office("sample.html")),
            ])
        )
        #expect(form.status == 201, "\(form.text)")
        for (answer, size) in [(raw, (288.0, 432.0)), (form, (432.0, 288.0))] {
            let job = try await JobAPITests.finish(client, try #require(answer.string("job_id")))
            let metadata = (job["document"] as? [String: Any])?["metadata"] as? [String: Any]
            let width = try #require(metadata?["page_width"] as? Double, "\(job)")
            let height = try #require(metadata?["page_height"] as? Double)
            #expect(abs(width - size.0) < 1 && abs(height - size.1) < 1, "page is \(width) × \(height) pt, asked \(size)")
        }

        let badOption = try await client.send(
            "POST",
            "/v1/jobs?filename=card.html&landscape=sideways",
            body: .file(path: Fixtures.office("sample.html")),
            headers: [("Content-Type", "text/html")]
        )
        #expect(badOption.status == 400 && badOption.string("error") == "invalid_options", "\(badOption.text)")
        #expect(badOption.string("error_message")?.contains("landscape") == true)
        await server.stop()
    }

    @Test("a file no converter reads is refused at create with 415, naming the accepted formats")
    func unsupportedFormatsAre415() async throws {
        let server = try await ServerProcess()
        let client = APIClient(base: server.baseURL)
        let ebook = try await client.post("/v1/jobs", json: ["type": "EBOOK_TO_PDF", "original_filename": "report.docx"])
        #expect(ebook.status == 415 && ebook.string("error") == "unsupported_format", "\(ebook.text)")
        #expect(ebook.string("error_message")?.contains("epub") == true, "lists what would do")
        let binary = try await client.send(
            "POST",
            "/v1/jobs?filename=setup.exe",
            body: .bytes(Array("MZ not a document".utf8)),
            headers: [("Content-Type", "application/octet-stream")]
        )
        #expect(binary.status == 415 && binary.string("error") == "unsupported_format", "\(binary.text)")
        let import415 = try await client.send(
            "POST",
            "/v1/documents",
            body: .bytes(Array(#"{"not": "a pdf"}"#.utf8)),
            headers: [("Content-Type", "application/json")]
        )
        #expect(import415.status == 415 && import415.string("error") == "unsupported_media_type", "\(import415.text)")
        let jobs = (try await client.get("/v1/jobs").json["jobs"] as? [[String: Any]]) ?? []
        #expect(jobs.isEmpty, "nothing was created: \(jobs)")
        let documents = (try await client.get("/v1/documents").json["documents"] as? [[String: Any]]) ?? []
        #expect(documents.isEmpty)
        await server.stop()
    }

    @Test("a method a path does not support answers 405 with Allow, not 404")
    func wrongMethodIs405() async throws {
        let server = try await ServerProcess()
        let client = APIClient(base: server.baseURL)
        let cases: [(method: String, path: String, allow: String)] = [
            ("DELETE", "/v1/documents", "GET, POST"),
            ("PUT", "/v1/jobs/0b5c7c36-51c1-4a43-9e49-0d2b0d0a7f11", "GET, DELETE"),
            ("POST", "/healthz", "GET"),
        ]
        for (method, path, allow) in cases {
            let answer = try await client.send(method, path)
            #expect(answer.status == 405 && answer.string("error") == "method_not_allowed", "\(method) \(path): \(answer.text)")
            let allowed = Set((answer.headers["Allow"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(allowed == Set(allow.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }), "\(method) \(path)")
        }
        #expect(try await client.get("/v1/nothing-here").status == 404, "an unknown path is still 404")
        await server.stop()
    }
}
