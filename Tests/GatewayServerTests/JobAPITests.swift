import Foundation
import GatewayHTTPClient
import GatewayServer
import GatewayTestSupport
import Synchronization
import Testing

@Suite("Job API: idempotency, events, webhooks, concurrency, spec")
struct JobAPITests {
    /// Waits for a job to reach a terminal status by polling.
    static func finish(_ client: APIClient, _ id: String, timeout: Double = 90) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let job = try await client.get("/v1/jobs/\(id)").json
            if ["SUCCEEDED", "FAILED", "CANCELLED"].contains(job["status"] as? String ?? "") { return job }
            try await Task.sleep(for: .milliseconds(200))
        }
        Issue.record("job \(id) did not finish in \(timeout) s")
        return [:]
    }

    @Test("Idempotency-Key: same body → same job, other body → 422; one-shot raw create with the file")
    func idempotencyAndOneShot() async throws {
        let server = try await ServerProcess()
        defer { Task { await server.stop() } }
        let client = APIClient(base: server.baseURL)
        let body = ["type": "DOC_TO_PDF", "original_filename": "a.docx"]
        let first = try await client.send("POST", "/v1/jobs", json: body, headers: [("Idempotency-Key", "k-1")])
        let second = try await client.send("POST", "/v1/jobs", json: body, headers: [("Idempotency-Key", "k-1")])
        #expect(first.status == 201 && second.status == 200)
        #expect(first.string("job_id") != nil && first.string("job_id") == second.string("job_id"))
        let other = try await client.send(
            "POST",
            "/v1/jobs",
            json: ["type": "DOC_TO_PDF", "original_filename": "b.docx"],
            headers: [("Idempotency-Key", "k-1")]
        )
        #expect(other.status == 422 && other.string("error") == "idempotency_key_reused")

        // One request carries the file: created, uploaded and submitted at once.
        let oneShot = try await client.send(
            "POST",
            "/v1/jobs?folder=Reports",
            body: .file(path: Fixtures.office("sample.rtf")),
            headers: [("Content-Type", "application/octet-stream"), ("Content-Disposition", "attachment; filename=\"Quarterly report.rtf\"")]
        )
        #expect(oneShot.status == 201, "\(oneShot.text)")
        let job = try await Self.finish(client, try #require(oneShot.string("job_id")))
        #expect(job["status"] as? String == "SUCCEEDED", "\(job)")
        let document = job["document"] as? [String: Any]
        #expect(document?["path"] as? String == "default/Reports/Quarterly report.pdf")

        // The same as multipart/form-data: a `file` part and text fields, parsed as a stream.
        let form = try await client.send(
            "POST",
            "/v1/jobs",
            body: .multipart([.text("folder", "Forms"), .file("file", path: Fixtures.office("sample.odt")), .text("name", "From a form")])
        )
        #expect(form.status == 201 && form.string("status") == "QUEUED", "\(form.text)")
        let formJob = try await Self.finish(client, try #require(form.string("job_id")))
        #expect((formJob["document"] as? [String: Any])?["path"] as? String == "default/Forms/From a form.pdf", "\(formJob)")

        // A bad request names what is wrong.
        let bad = try await client.post("/v1/jobs", json: ["type": "PNG_TO_PDF"])
        #expect(bad.status == 400 && bad.string("error") == "invalid_type")
        #expect(bad.string("error_message")?.contains("URL_TO_PDF") == true)
        await server.stop()
    }

    @Test("SSE: snapshot first, monotonic ids, Last-Event-ID resumes, ends after the terminal event")
    func eventsResume() async throws {
        let server = try await ServerProcess()
        defer { Task { await server.stop() } }
        let client = APIClient(base: server.baseURL)
        let oneShot = try await client.send(
            "POST",
            "/v1/jobs?filename=sample.docx",
            body: .file(path: Fixtures.office("sample.docx")),
            headers: [("Content-Type", "application/octet-stream")]
        )
        let id = try #require(oneShot.string("job_id"))
        // Streamed live from QUEUED: the answer completes only because the stream ends itself.
        let live = try await client.get("/v1/jobs/\(id)/events")
        #expect(live.headers["Content-Type"]?.hasPrefix("text/event-stream") == true)
        let events = Self.parse(live.text)
        #expect(events.count >= 2, "\(live.text)")
        let ids = events.map(\.id)
        #expect(ids == ids.sorted() && Set(ids).count == ids.count, "monotonic ids: \(ids)")
        #expect(events.last?.status == "SUCCEEDED")

        // Resuming after the next-to-last event yields only the last one.
        let resumeFrom = ids[ids.count - 2]
        let resumed = Self.parse(try await client.get("/v1/jobs/\(id)/events", headers: [("Last-Event-ID", String(resumeFrom))]).text)
        #expect(resumed.map(\.id) == [ids.last!])
        // Having seen everything, the stream is empty and ends at once.
        let none = Self.parse(try await client.get("/v1/jobs/\(id)/events", headers: [("Last-Event-ID", String(ids.last!))]).text)
        #expect(none.isEmpty)
        await server.stop()
    }

    static func parse(_ text: String) -> [(id: Int, status: String)] {
        text.components(separatedBy: "\n\n").compactMap { block in
            var id: Int?
            var status: String?
            for line in block.split(separator: "\n") {
                if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
                if line.hasPrefix("data: "),
                    let json = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any]
                {
                    status = json["status"] as? String
                }
            }
            guard let id, let status else { return nil }
            return (id, status)
        }
    }

    @Test("webhook: the terminal state is POSTed to callback_url with a valid Standard Webhooks signature")
    func webhook() async throws {
        let received = Mutex<[(headers: [String: String], body: [UInt8])]>([])
        let receiver = try LoopbackHTTPServer { request, response in
            let body = try request.readBody()
            var headers: [String: String] = [:]
            for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] { headers[name] = request.header(name) }
            received.withLock { $0.append((headers, body)) }
            try response.respond(status: 204)
        }
        defer { receiver.stop() }
        let server = try await ServerProcess(arguments: ["--allow-host", "127.0.0.1"])
        defer { Task { await server.stop() } }
        let client = APIClient(base: server.baseURL)
        let created = try await client.send(
            "POST",
            "/v1/jobs?filename=sample.docx&callback_url=" + receiver.url("/hook").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
            body: .file(path: Fixtures.office("sample.docx")),
            headers: [("Content-Type", "application/octet-stream")]
        )
        #expect(created.status == 201, "\(created.text)")
        _ = try await Self.finish(client, try #require(created.string("job_id")))
        let deadline = Date().addingTimeInterval(10)
        while received.withLock({ $0.isEmpty }) && Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        let delivery = try #require(received.withLock { $0.first })
        let secret = try await run(builtProduct("pdfgate"), ["token", "webhook-secret", "--store", server.store]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let signer = WebhookSigner(secret: secret)
        let id = try #require(delivery.headers["webhook-id"])
        let timestamp = try #require(delivery.headers["webhook-timestamp"].flatMap { Int64($0) })
        #expect(abs(Double(timestamp) - Date().timeIntervalSince1970) < 120)
        #expect(signer.verify(id: id, timestamp: timestamp, body: Data(delivery.body), header: delivery.headers["webhook-signature"] ?? ""))
        #expect(
            !WebhookSigner(secret: "whsec_" + Data(repeating: 7, count: 32).base64EncodedString())
                .verify(id: id, timestamp: timestamp, body: Data(delivery.body), header: delivery.headers["webhook-signature"] ?? "")
        )
        let payload = try JSONSerialization.jsonObject(with: Data(delivery.body)) as? [String: Any]
        #expect(payload?["type"] as? String == "job.succeeded")
        #expect((payload?["data"] as? [String: Any])?["status"] as? String == "SUCCEEDED")
        await server.stop()
    }

    @Test("1,000 concurrent job creations: none lost, none duplicated")
    func concurrentCreations() async throws {
        let server = try await ServerProcess(arguments: ["--max-active-jobs", "5000", "--jobs-per-minute", "100000"])
        defer { Task { await server.stop() } }
        let client = APIClient(base: server.baseURL)
        let total = 1000
        let ids = try await withThrowingTaskGroup(of: String?.self) { group in
            var next = 0
            var ids: [String] = []
            // 64 in flight at a time: each libcurl transfer has a thread of its own.
            for _ in 0..<64 {
                let n = next
                group.addTask {
                    try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "doc-\(n).docx"]).string("job_id")
                }
                next += 1
            }
            while let id = try await group.next() {
                if let id { ids.append(id) }
                if next < total {
                    let n = next
                    group.addTask {
                        try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "doc-\(n).docx"]).string("job_id")
                    }
                    next += 1
                }
            }
            return ids
        }
        #expect(ids.count == total)
        #expect(Set(ids).count == total, "every creation got its own job")
        // The store agrees: walk the list with the cursor.
        var listed: [String] = []
        var cursor: String?
        repeat {
            let page = try await client.get(
                "/v1/jobs?limit=200" + (cursor.map { "&cursor=" + $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! } ?? "")
            ).json
            listed += ((page["jobs"] as? [[String: Any]]) ?? []).compactMap { $0["job_id"] as? String }
            cursor = page["next_cursor"] as? String
        } while cursor != nil
        #expect(listed.count == total && Set(listed) == Set(ids))
        await server.stop()
    }
}
