import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

/// What a job create is refused for before any work is done, on real `pdfgate serve`
/// processes: the per-owner limits, held exactly under concurrency and checked before a one-shot
/// body is read (a multipart form's caps go through the router: `JobRouterTests`).
@Suite("Admission: per-owner limits")
struct AdmissionTests {
    @Test("many concurrent creates against --max-active-jobs 3: exactly 3 are created, the rest hear 429")
    func concurrentCreatesAtTheLimit() async throws {
        try await using(await ServerProcess(arguments: ["--max-active-jobs", "3", "--jobs-per-minute", "100000"])) { server in
            let total = 60
            let answers = try await onThread {
                try RawHTTPBurst.send(port: server.port, count: total) { n in
                    let body = #"{"type":"DOC_TO_PDF","original_filename":"doc-\#(n).docx"}"#
                    let head = "POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    return head + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
                }
            }
            let created = answers.filter { $0.hasPrefix("HTTP/1.1 201") }.count
            let refused = answers.filter { $0.hasPrefix("HTTP/1.1 429") && $0.contains(#""error":"too_many_jobs""#) }.count
            #expect(created == 3 && refused == total - 3, "\(created) created, \(refused) refused")
            let jobs = (try await APIClient(base: server.baseURL).get("/v1/jobs").json["jobs"] as? [Any]) ?? []
            #expect(jobs.count == 3, "the store holds exactly the limit")
            await server.stop()
        }
    }

    /// Heads of a one-shot create that promise a 50 MB body, of which only the first bytes come.
    static let oneShotHeads: [String: String] = [
        "raw": """
        POST /v1/jobs?filename=big.docx HTTP/1.1\r
        Host: 127.0.0.1\r
        Content-Type: application/octet-stream\r
        Content-Length: 50000000\r
        Connection: close
        """,
        "multipart": """
        POST /v1/jobs HTTP/1.1\r
        Host: 127.0.0.1\r
        Content-Type: multipart/form-data; boundary=held\r
        Content-Length: 50000000\r
        Connection: close
        """,
    ]

    @Test(
        "an owner at its limit hears 429 on a one-shot create before sending the body, and nothing is staged",
        arguments: [("--max-active-jobs", "too_many_jobs"), ("--jobs-per-minute", "rate_limited")],
        ["raw", "multipart"]
    )
    func oneShotIsRefusedBeforeItsBody(limit: (option: String, code: String), form: String) async throws {
        try await using(await ServerProcess(arguments: [limit.option, "1"])) { server in
            let client = APIClient(base: server.baseURL)
            #expect(try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "first.docx"]).status == 201)

            let start =
                form == "raw"
                ? [UInt8](repeating: 0x50, count: 64 * 1024)
                : Array("--held\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.docx\"\r\n\r\n".utf8)
            let head = try #require(Self.oneShotHeads[form])
            let request = try HeldRequest(port: server.port, head: head, body: start)
            // The answer comes although almost all of the promised body is still unsent.
            let answer = try #require(await onThread { request.answer(timeout: 10) }, "no answer before the body was sent")
            #expect(answer.status == 429 && answer.json["error"] as? String == limit.code, "\(answer.status) \(answer.text)")
            #expect(answer.headers["retry-after"].flatMap(Int.init).map { $0 >= 1 } == true)

            let staging = server.store + "/.pdfgate/staging"
            let incoming = (try? FileManager.default.contentsOfDirectory(atPath: staging))?.filter { $0.hasPrefix("incoming-") } ?? []
            #expect(incoming.isEmpty, "nothing staged: \(incoming)")
            let jobs = (try await client.get("/v1/jobs").json["jobs"] as? [Any]) ?? []
            #expect(jobs.count == 1, "no job was created")
            await server.stop()
        }
    }

    @Test("the replay of a one-shot create answers its job even when that job put the owner at its limit")
    func aReplayIsNotHeldToTheLimits() async throws {
        // A converter that never answers keeps the first job unfinished, so the owner stays at 1 of 1.
        let converter = try LoopbackHTTPServer { _, response in response.hang() }
        defer { converter.stop() }
        // A short grace: at the end the hung job is cut, not waited for 30 s.
        let server = try await ServerProcess(
            arguments: ["--max-active-jobs", "1", "--routes", "DOC_TO_PDF=gotenberg=\(converter.baseURL)", "--shutdown-grace", "0.5"]
        )
        try await using(server) { server in
            let client = APIClient(base: server.baseURL)
            func create(key: String) async throws -> APIClient.Answer {
                try await client.send(
                    "POST",
                    "/v1/jobs?filename=sample.docx",
                    body: .file(path: Fixtures.office("sample.docx")),
                    headers: [("Content-Type", "application/octet-stream"), ("Idempotency-Key", key)]
                )
            }
            let first = try await create(key: "k-1")
            #expect(first.status == 201, "\(first.text)")
            let replay = try await create(key: "k-1")
            #expect(replay.status == 200 && replay.string("job_id") == first.string("job_id"), "\(replay.status) \(replay.text)")
            let another = try await create(key: "k-2")
            #expect(another.status == 429 && another.string("error") == "too_many_jobs", "a new key is held to the limit: \(another.text)")
            await server.stop()
        }
    }
}
