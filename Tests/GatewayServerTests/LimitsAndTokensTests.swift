import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import GatewayServer

/// The guard rails around the job protocol: signed download URLs and the per-owner concurrency
/// limit (through the router in-process), token lifecycle from the CLI and webhook delivery
/// when the receiver fails or the callback URL is off limits (on real `pdfgate serve` processes).
@Suite("Limits, tokens, downloads, webhook retries")
struct LimitsAndTokensTests {
    @Test("download URLs: tampered → 403, expired → 410, and a poll re-issues a fresh one")
    func signedDownloads() async throws {
        // Through the router in-process: signatures need no socket.
        let gateway = try await InProcessGateway()
        let meta = gateway.server.assembly.library.paths.meta
        let pdf = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
        try await gateway.run { client in
            /// A signed URL as the router sees it: its path and query.
            func get(_ url: String) async throws -> TestResponse {
                let components = try #require(URLComponents(string: url))
                return try await client.send(.get, components.percentEncodedPath + "?" + (components.percentEncodedQuery ?? ""))
            }
            let imported = try await client.send(.post, "/v1/documents?name=report", bytes: pdf, contentType: "application/pdf")
            #expect(imported.status == .created, "\(imported.json)")
            let id = try #require(imported.json["id"] as? String)
            let url = try #require(imported.json["download_url"] as? String)
            let ok = try await get(url)
            #expect(ok.status == .ok && Array(ok.body.readableBytesView).starts(with: Array("%PDF-".utf8)))

            var tampered = url
            // A character inside the signature: the last one of base64 may carry only padding bits.
            let inside = tampered.index(tampered.endIndex, offsetBy: -10)
            tampered.replaceSubrange(inside...inside, with: tampered[inside] == "A" ? "B" : "A")
            let forged = try await get(tampered)
            #expect(forged.status == .forbidden && forged.error.code == "bad_signature", "\(forged.json)")
            let otherDocument = url.replacingOccurrences(of: id, with: UUID().uuidString.lowercased())
            #expect(try await get(otherDocument).status == .forbidden, "the signature covers the path")

            let secrets = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: meta + "/secrets.json"))) as? [String: Any]
            let key = try #require((secrets?["signing_keys"] as? [[String: Any]])?.first)
            let signer = TestSigner(id: key["id"] as! String, secret: key["secret"] as! String)
            let path = try #require(URLComponents(string: url)?.path)
            let expired = path + "?" + signer.sign(method: "GET", path: path, exp: Int64(Date().timeIntervalSince1970) - 5, max: nil)
            let gone = try await client.send(.get, expired)
            #expect(gone.status == .gone && gone.error.code == "url_expired", "\(gone.json)")

            // Asking again re-issues: a new URL that works.
            let again = try #require(try await client.send(.get, "/v1/documents/\(id)").json["download_url"] as? String)
            #expect(try await get(again).status == .ok)
        }
    }

    @Test("an owner past the concurrent-jobs limit gets 429 with Retry-After, and room again once one ends")
    func concurrentJobsLimit() async throws {
        let gateway = try await InProcessGateway { $0.maxActiveJobsPerOwner = 2 }
        try await gateway.run { client in
            var ids: [String] = []
            for n in 0..<2 {
                let created = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "d\(n).docx"])
                #expect(created.status == .created)
                ids.append(try #require(created.json["job_id"] as? String))
            }
            let refused = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "d2.docx"])
            #expect(refused.status == .tooManyRequests, "\(refused.json)")
            #expect(refused.headers[.retryAfter].flatMap(Int.init).map { $0 >= 1 } == true)
            #expect(refused.error.message?.contains("2") == true, "the message names the limit: \(refused.json)")
            #expect(try await client.send(.delete, "/v1/jobs/\(ids[0])").status == .ok)
            #expect(try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "d3.docx"]).status == .created)
        }
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
        try await eventually("a revoked token is refused within the cache lifetime", within: .seconds(10), poll: .milliseconds(100)) {
            try await client.get("/v1/jobs").status == 401
        }
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
        try await eventually("two 500s, then delivered", within: .seconds(30), poll: .milliseconds(100)) { deliveries.withLock { $0.count } >= 3 }
        let ids = deliveries.withLock { $0 }
        #expect(ids.count == 3, "two 500s, then delivered: \(ids)")
        #expect(Set(ids).count == 1, "retries carry the same webhook-id, so receivers can deduplicate")
        try await keepsHolding("nothing after the 2xx", for: .seconds(1)) { deliveries.withLock { $0.count } == 3 }

        for callback in ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.8/hook", "http://localhost:9/hook", "ftp://example.com/x"] {
            let refused = try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "a.docx", "callback_url": callback])
            #expect((400..<500).contains(refused.status) && refused.string("error") == "url_forbidden", "\(callback): \(refused.text)")
        }
        await server.stop()
    }
}
