import Foundation
import GatewayHTTPClient
import GatewayServer
import GatewayTestSupport
import Synchronization
import Testing

/// The guard rails around the job protocol, on real `pdfgate serve` processes: signed download
/// URLs, the per-owner concurrency limit, token lifecycle from the CLI, and webhook delivery
/// when the receiver fails or the callback URL is off limits.
@Suite("Limits, tokens, downloads, webhook retries")
struct LimitsAndTokensTests {
    @Test("download URLs: tampered → 403, expired → 410, and a poll re-issues a fresh one")
    func signedDownloads() async throws {
        let server = try await ServerProcess()
        let client = APIClient(base: server.baseURL)
        let imported = try await client.send(
            "POST",
            "/v1/documents?name=report",
            body: .file(path: Fixtures.pdf("one-page.pdf")),
            headers: [("Content-Type", "application/pdf")]
        )
        #expect(imported.status == 201, "\(imported.text)")
        let id = try #require(imported.string("id"))
        let url = try #require(imported.string("download_url"))
        let ok = try await client.get(url)
        #expect(ok.status == 200 && ok.body.starts(with: Array("%PDF-".utf8)))

        var tampered = url
        // A character inside the signature: the last one of base64 may carry only padding bits.
        let inside = tampered.index(tampered.endIndex, offsetBy: -10)
        tampered.replaceSubrange(inside...inside, with: tampered[inside] == "A" ? "B" : "A")
        let forged = try await client.get(tampered)
        #expect(forged.status == 403 && forged.string("error") == "bad_signature", "\(forged.text)")
        let otherDocument = url.replacingOccurrences(of: id, with: UUID().uuidString.lowercased())
        #expect(try await client.get(otherDocument).status == 403, "the signature covers the path")

        let secrets =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: server.store + "/.pdfgate/secrets.json"))) as? [String: Any]
        let key = try #require((secrets?["signing_keys"] as? [[String: Any]])?.first)
        let signer = TestSigner(id: key["id"] as! String, secret: key["secret"] as! String)
        let path = try #require(URLComponents(string: url)?.path)
        let expired = server.baseURL + path + "?" + signer.sign(method: "GET", path: path, exp: Int64(Date().timeIntervalSince1970) - 5, max: nil)
        let gone = try await client.get(expired)
        #expect(gone.status == 410 && gone.string("error") == "url_expired", "\(gone.text)")

        // Asking again re-issues: a new URL that works.
        let again = try #require(try await client.get("/v1/documents/\(id)").string("download_url"))
        #expect(try await client.get(again).status == 200)
        await server.stop()
    }

    @Test("an owner past the concurrent-jobs limit gets 429 with Retry-After, and room again once one ends")
    func concurrentJobsLimit() async throws {
        let server = try await ServerProcess(arguments: ["--max-active-jobs", "2"])
        let client = APIClient(base: server.baseURL)
        var ids: [String] = []
        for n in 0..<2 {
            let created = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "d\(n).docx"])
            #expect(created.status == 201)
            ids.append(try #require(created.string("job_id")))
        }
        let refused = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "d2.docx"])
        #expect(refused.status == 429, "\(refused.text)")
        #expect(refused.headers["Retry-After"].flatMap(Int.init).map { $0 >= 1 } == true)
        #expect(refused.string("error_message")?.contains("2") == true, "the message names the limit: \(refused.text)")
        #expect(try await client.send("DELETE", "/v1/jobs/\(ids[0])").status == 200)
        #expect(try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "d3.docx"]).status == 201)
        await server.stop()
    }

    @Test("tokens: created once, listed without secrets, revoked → 401")
    func tokenLifecycle() async throws {
        let store = FileManager.default.temporaryDirectory.path + "/pdfgate-tokens-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let pdfgate = builtProduct("pdfgate")
        let created = try await run(pdfgate, ["token", "create", "--owner", "alice", "--name", "laptop", "--store", store, "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])
        let secret = try #require(answer["token"] as? String)
        let tokenID = try #require(answer["id"] as? String)

        let listed = try await run(pdfgate, ["token", "list", "--store", store, "--json"])
        #expect(listed.stdout.contains(tokenID) && listed.stdout.contains("laptop") && listed.stdout.contains("alice"))
        #expect(!listed.stdout.contains(secret), "the secret is never shown again")

        let server = try await ServerProcess(store: store, arguments: ["--auth", "tokens"])
        let client = APIClient(base: server.baseURL, token: secret)
        #expect(try await client.get("/v1/jobs").status == 200)
        #expect(try await run(pdfgate, ["token", "revoke", tokenID, "--store", store]).status == 0)
        // Revocation reaches the server's few-second token cache.
        var status = 200
        for _ in 0..<100 where status != 401 {
            try await Task.sleep(for: .milliseconds(100))
            status = try await client.get("/v1/jobs").status
        }
        #expect(status == 401, "a revoked token is refused within the cache lifetime")
        let relisted = try await run(pdfgate, ["token", "list", "--store", store, "--json"])
        let entries = (try JSONSerialization.jsonObject(with: Data(relisted.stdout.utf8)) as? [[String: Any]]) ?? []
        #expect(entries.first { $0["id"] as? String == tokenID }?["revoked_at"] is String, "\(relisted.stdout)")
        #expect(try await run(pdfgate, ["token", "revoke", "no-such-id", "--store", store]).status != 0)
        await server.stop()
    }

    @Test("webhooks: a failing receiver is retried with backoff under one id; a private callback URL is refused at create")
    func webhookRetriesAndSSRF() async throws {
        let deliveries = Mutex<[String]>([])
        let receiver = try LoopbackHTTPServer { request, response in
            _ = try request.readBody()
            let count = deliveries.withLock { list -> Int in
                list.append(request.header("webhook-id") ?? "?")
                return list.count
            }
            try response.respond(status: count <= 2 ? 500 : 204)
        }
        defer { receiver.stop() }
        let server = try await ServerProcess(arguments: ["--allow-host", "127.0.0.1"])
        let client = APIClient(base: server.baseURL)
        let created = try await client.oneShot(
            "sample.rtf",
            query: "&callback_url=" + receiver.url("/hook").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        )
        #expect(created.status == 201, "\(created.text)")
        _ = try await JobAPITests.finish(client, try #require(created.string("job_id")))
        let deadline = Date().addingTimeInterval(30)
        while deliveries.withLock({ $0.count }) < 3 && Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        let ids = deliveries.withLock { $0 }
        #expect(ids.count == 3, "two 500s, then delivered: \(ids)")
        #expect(Set(ids).count == 1, "retries carry the same webhook-id, so receivers can deduplicate")
        try await Task.sleep(for: .seconds(1))
        #expect(deliveries.withLock { $0.count } == 3, "nothing after the 2xx")

        for callback in ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.8/hook", "http://localhost:9/hook", "ftp://example.com/x"] {
            let refused = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "a.docx", "callback_url": callback])
            #expect((400..<500).contains(refused.status) && refused.string("error") == "url_forbidden", "\(callback): \(refused.text)")
        }
        await server.stop()
    }
}
