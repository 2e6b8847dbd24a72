import Foundation
import GatewayHTTPClient
import GatewayTestSupport
import Testing

/// A gateway killed with SIGKILL in the middle of a job, then started again on the same store,
/// finishes the job exactly once: one document, and (for a remote job) no second upload.
@Suite("SIGKILL mid-job, then restart")
struct CrashRestartTests {
    /// Polls until `predicate` holds for the job, or fails after `timeout`.
    static func waitFor(
        _ client: APIClient,
        _ id: String,
        timeout: Double = 60,
        _ predicate: ([String: Any]) -> Bool
    ) async throws
        -> [String: Any]
    {
        var job: [String: Any] = [:]
        return try await until("job \(id) reaches the expected state; last: \(job)", within: .seconds(timeout), poll: .milliseconds(50)) {
            job = try await client.get("/v1/jobs/\(id)").json
            return predicate(job) ? job : nil
        }
    }

    static func documents(_ client: APIClient) async throws -> [[String: Any]] {
        (try await client.get("/v1/documents?recursive=true&limit=200").json["documents"] as? [[String: Any]]) ?? []
    }

    @Test("a remote job resumes polling its stored remote id: one upload, one job there, one document here")
    func remoteJobSurvivesKill() async throws {
        let back = try await ServerProcess()
        let store = FileManager.default.temporaryDirectory.path + "/pdfgate-kill-\(UUID().uuidString.prefix(8))"
        let routes = ["--routes", "DOC_TO_PDF=gateway=\(back.baseURL)"]
        var front = try await ServerProcess(store: store, arguments: routes)
        var client = APIClient(base: front.baseURL)
        let created = try await client.oneShot("sample.docx")
        let id = try #require(created.string("job_id"))
        // Kill while the front is polling the back (the back's cold LibreOffice takes a while).
        _ = try await Self.waitFor(client, id) { $0["phase"] as? String == "polling" }
        await front.kill9()

        front = try await ServerProcess(store: store, arguments: routes)
        client = APIClient(base: front.baseURL)
        let job = try await Self.waitFor(client, id) { ["SUCCEEDED", "FAILED"].contains($0["status"] as? String ?? "") }
        #expect(job["status"] as? String == "SUCCEEDED", "\(job)")
        #expect(try await Self.documents(client).count == 1, "exactly one document")
        let backJobs = (try await APIClient(base: back.baseURL).get("/v1/jobs").json["jobs"] as? [[String: Any]]) ?? []
        #expect(backJobs.count == 1, "the restarted gateway polled its stored remote job instead of uploading again")
        await front.stop()
        await back.stop()
    }

    @Test("a local job restarts from its staged input and files exactly one document")
    func localJobSurvivesKill() async throws {
        let store = FileManager.default.temporaryDirectory.path + "/pdfgate-kill-\(UUID().uuidString.prefix(8))"
        var server = try await ServerProcess(store: store)
        var client = APIClient(base: server.baseURL)
        let created = try await client.oneShot("sample.pptx", query: "&folder=Slides")
        let id = try #require(created.string("job_id"))
        _ = try await Self.waitFor(client, id) { $0["status"] as? String == "PROCESSING" }
        try await eventually("LibreOffice runs the job") { Self.processes(mentioning: store).contains { $0.contains("soffice") } }
        await server.kill9()
        // Nothing the dead gateway started outlives it: soffice.bin included, whose parent
        // exits first and which no one else would stop.
        var survivors: [String] = []
        try await eventually("nothing runs after the gateway was killed; still: \(survivors)", within: .seconds(10), poll: .milliseconds(100)) {
            survivors = Self.processes(mentioning: store)
            return survivors.isEmpty
        }

        server = try await ServerProcess(store: store)
        client = APIClient(base: server.baseURL)
        let job = try await Self.waitFor(client, id, timeout: 90) { ["SUCCEEDED", "FAILED"].contains($0["status"] as? String ?? "") }
        #expect(job["status"] as? String == "SUCCEEDED", "\(job)")
        let documents = try await Self.documents(client)
        #expect(documents.count == 1 && documents.first?["path"] as? String == "default/Slides/sample.pdf")
        // And the library on disk agrees with the database.
        let fsck = try await run(builtProduct("pdfgate"), ["fsck", "--store", store, "--json"])
        #expect(fsck.status == 0, "fsck: \(fsck.stdout) \(fsck.stderr)")
        await server.stop()
    }

    /// Command lines of live processes that mention `text` (a store path, say).
    static func processes(mentioning text: String) -> [String] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { $0.allSatisfy(\.isNumber) } ?? []
        return pids.compactMap { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let line = String(decoding: data.map { $0 == 0 ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
            return line.contains(text) ? "\(pid): \(line.prefix(160))" : nil
        }
    }
}
