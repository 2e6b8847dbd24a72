import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

/// The corners of the job protocol of DESIGN §3.1 that need real sockets: the SSE snapshot, and
/// an Idempotency-Key whose first request is still streaming its body. The rest of the protocol
/// goes through the router in `JobRouterTests`.
@Suite("Job protocol corners over HTTP")
struct JobProtocolEdgeTests {
    @Test("the event stream's first event is the whole job, as GET /v1/jobs/{id} answers it")
    func firstEventIsAFullSnapshot() async throws {
        try await using(await ServerProcess()) { server in
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
        try await using(await ServerProcess()) { server in
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
            // The key is held from the first byte; the body streams into staging after that.
            try await eventually("the server is reading the body") {
                let staged = try? FileManager.default.contentsOfDirectory(atPath: server.store + "/.pdfgate/staging")
                return staged?.contains { $0.hasPrefix("incoming-") } == true
            }

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
}
