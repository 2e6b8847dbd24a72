import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

/// The corners of the job protocol of DESIGN §3.1 over real HTTP: a URL job's first answer, a
/// succeeded job whose document was deleted since, the SSE snapshot, and an Idempotency-Key
/// whose first request is still streaming its body.
@Suite("Job protocol corners over HTTP")
struct JobProtocolEdgeTests {
    @Test("POST /v1/jobs with a URL answers {job_id, status: QUEUED}")
    func urlJobIsQueued() async throws {
        let page = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(status: 200, headers: [("Content-Type", "text/html")], text: "<h1>Queued</h1>")
        }
        defer { page.stop() }
        let server = try await ServerProcess(arguments: ["--allow-host", "127.0.0.1"])
        defer { Task { await server.stop() } }
        let client = APIClient(base: server.baseURL)
        let created = try await client.post("/v1/jobs", json: ["type": "URL_TO_PDF", "url": page.url("/page")])
        #expect(created.status == 201, "\(created.text)")
        #expect(created.string("status") == "QUEUED", "\(created.text)")
        let id = try #require(created.string("job_id"))
        #expect(UUID(uuidString: id) != nil && id == id.lowercased(), "a lowercase UUID: \(id)")
        #expect(created.json["upload"] == nil, "a URL job has nothing to upload")
        #expect(try await client.send("DELETE", "/v1/jobs/\(id)").status == 200)
        await server.stop()
    }

    @Test("a succeeded job whose document was deleted keeps its download_url, which answers 410 document_deleted")
    func deletedDocumentOfSucceededJob() async throws {
        let server = try await ServerProcess()
        defer { Task { await server.stop() } }
        let client = APIClient(base: server.baseURL)
        let created = try await client.oneShot("sample.rtf")
        let id = try #require(created.string("job_id"), "\(created.text)")
        let finished = try await JobAPITests.finish(client, id)
        #expect(finished["status"] as? String == "SUCCEEDED", "\(finished)")
        let document = try #require((finished["document"] as? [String: Any])?["id"] as? String)
        #expect(try await client.send("DELETE", "/v1/documents/\(document)").status == 204)

        let job = try await client.get("/v1/jobs/\(id)")
        #expect(job.string("status") == "SUCCEEDED")
        #expect(job.json["document"] == nil, "the document is gone: \(job.text)")
        let url = try #require(job.string("download_url"), "SUCCEEDED always carries download_url: \(job.text)")
        let listed = (try await client.get("/v1/jobs").json["jobs"] as? [[String: Any]])?.first { $0["job_id"] as? String == id }
        #expect(listed?["download_url"] is String, "lists too")

        let gone = try await client.get(url)
        #expect(gone.status == 410 && gone.string("error") == "document_deleted", "\(gone.status) \(gone.text)")
        #expect(gone.string("error_message")?.contains("deleted from the library after the job succeeded") == true, "\(gone.text)")

        // A deleted document that no job made is simply not found.
        let imported = try await client.send(
            "POST",
            "/v1/documents?name=loose",
            body: .file(path: Fixtures.pdf("one-page.pdf")),
            headers: [("Content-Type", "application/pdf")]
        )
        let looseURL = try #require(imported.string("download_url"))
        #expect(try await client.send("DELETE", "/v1/documents/\(imported.string("id") ?? "")").status == 204)
        let missing = try await client.get(looseURL)
        #expect(missing.status == 404 && missing.string("error") == "document_not_found", "\(missing.text)")
        await server.stop()
    }

    @Test("the event stream's first event is the whole job, as GET /v1/jobs/{id} answers it")
    func firstEventIsAFullSnapshot() async throws {
        let server = try await ServerProcess()
        defer { Task { await server.stop() } }
        let client = APIClient(base: server.baseURL)
        let created = try await client.oneShot("sample.rtf", query: "&folder=Snapshots&name=Snap")
        let id = try #require(created.string("job_id"), "\(created.text)")
        _ = try await JobAPITests.finish(client, id)
        let polled = try await client.get("/v1/jobs/\(id)").json
        let stream = try await client.get("/v1/jobs/\(id)/events").text
        let firstData = try #require(stream.components(separatedBy: "\n").first { $0.hasPrefix("data: ") }, "\(stream)")
        let first = try #require(try JSONSerialization.jsonObject(with: Data(firstData.dropFirst(6).utf8)) as? [String: Any])
        #expect(first["status"] as? String == "SUCCEEDED")
        #expect(Set(first.keys) == Set(polled.keys), "same keys: \(first.keys.sorted()) vs \(polled.keys.sorted())")
        #expect(Self.withoutSignatures(first) == Self.withoutSignatures(polled), "same values")
        let document = try #require(first["document"] as? [String: Any])
        #expect(document["path"] as? String == "default/Snapshots/Snap.pdf")
        #expect((first["download_url"] as? String)?.contains("/v1/downloads/default/") == true)
        await server.stop()
    }

    /// Signed URLs carry their expiry, which two answers a second apart may not share.
    static func withoutSignatures(_ json: [String: Any]) -> NSDictionary {
        var copy = json
        for (key, value) in json {
            if let url = value as? String, key.hasSuffix("url") { copy[key] = String(url.prefix { $0 != "?" }) }
            if let nested = value as? [String: Any] { copy[key] = withoutSignatures(nested) }
        }
        return copy as NSDictionary
    }

    @Test("Idempotency-Key: while the first one-shot create is still sending its body, the same key answers 409 in progress")
    func idempotencyKeyInProgress() async throws {
        let server = try await ServerProcess()
        defer { Task { await server.stop() } }
        let client = APIClient(base: server.baseURL)
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.office("sample.rtf"))))
        let head = """
            POST /v1/jobs?filename=held.rtf HTTP/1.1\r
            Host: 127.0.0.1\r
            Content-Type: application/octet-stream\r
            Idempotency-Key: held-1\r
            Content-Length: \(file.count)\r
            Connection: close
            """
        let first = try HeldRequest(port: server.port, head: head, body: Array(file.prefix(file.count / 2)))
        try await Task.sleep(for: .milliseconds(500))  // the server is now reading the body

        let again = try await client.send(
            "POST",
            "/v1/jobs",
            json: ["type": "DOC_TO_PDF", "original_filename": "held.rtf"],
            headers: [("Idempotency-Key", "held-1")]
        )
        #expect(again.status == 409 && again.string("error") == "idempotency_key_in_progress", "\(again.status) \(again.text)")

        try first.send(Array(file.dropFirst(file.count / 2)))
        let answer = try await onThread { first.answer(timeout: 30) }
        #expect(answer?.status == 201, "\(answer?.text ?? "no answer")")
        let id = try #require(answer?.json["job_id"] as? String)
        let jobs = (try await client.get("/v1/jobs").json["jobs"] as? [[String: Any]]) ?? []
        #expect(jobs.map { $0["job_id"] as? String } == [id], "the 409 created nothing")
        // Once the first request is done, the same request replays its job.
        let replay = try await client.send(
            "POST",
            "/v1/jobs?filename=held.rtf",
            body: .bytes(file),
            headers: [("Content-Type", "application/octet-stream"), ("Idempotency-Key", "held-1")]
        )
        #expect(replay.status == 200 && replay.string("job_id") == id, "\(replay.status) \(replay.text)")
        _ = try await JobAPITests.finish(client, id)
        await server.stop()
    }
}
