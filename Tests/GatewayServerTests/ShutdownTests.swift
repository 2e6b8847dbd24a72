import Foundation
import GatewayProcess
import GatewayTestSupport
import Testing

/// SIGTERM on a real `pdfgate serve`: event streams end instead of holding the server open, a
/// running job finishes within the grace period, and one that cannot is left to resume.
@Suite("SIGTERM: streams end, running jobs get their grace")
struct ShutdownTests {
    /// A Gotenberg stand-in whose conversions take `delay` seconds (or never end, for nil).
    static func slowGotenberg(delay: Double?) throws -> LoopbackHTTPServer {
        let pdf = try Array(Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
        return try LoopbackHTTPServer { request, response in
            if request.path == "/health" { return try response.respond(status: 200, text: #"{"status":"up"}"#) }
            _ = try request.discardBody()
            guard let delay else { return response.hang() }  // until the client or the stand-in goes away
            try response.respond(after: .seconds(delay), status: 200, headers: [("Content-Type", "application/pdf")], body: pdf)
        }
    }

    /// How the child exited; nil when it is still running after `timeout`.
    static func exitStatus(of process: Child, within timeout: Duration) async -> Int32? {
        await process.exit(within: timeout)?.status
    }

    @Test("an open event stream ends at SIGTERM and the server exits instead of waiting for the client")
    func eventStreamDoesNotHoldShutdown() async throws {
        let server = try await ServerProcess()
        let client = APIClient(base: server.baseURL)
        // A CREATED job never ends by itself: its stream would stay open forever.
        let id = try #require(try await client.post("/v1/jobs", json: ["type": "DOC_TO_PDF", "original_filename": "a.docx"]).string("job_id"))
        guard let (reading, writing) = socketPair() else { throw ChildFailure(description: "no pipe for curl's output") }
        let curl = try Child(
            "/usr/bin/curl",
            ["-sN", "--max-time", "120", server.baseURL + "/v1/jobs/\(id)/events"],
            stdout: .descriptor(writing)
        )
        close(writing)
        let output = FileHandle(fileDescriptor: reading, closeOnDealloc: true)
        let firstEvent = try await onThread { () -> String in
            var seen = Data()
            while !String(decoding: seen, as: UTF8.self).contains("\n\n") {
                let chunk = output.availableData
                if chunk.isEmpty { break }
                seen.append(chunk)
            }
            return String(decoding: seen, as: UTF8.self)
        }
        #expect(firstEvent.contains("CREATED"), "the snapshot arrived before the signal: \(firstEvent)")

        server.process.signal(SIGTERM)
        let status = await Self.exitStatus(of: server.process, within: .seconds(20))
        #expect(status == 0, "serve exited cleanly while a client held an event stream (status \(String(describing: status)))\n\(server.log)")
        let curlStatus = await Self.exitStatus(of: curl, within: .seconds(10))
        #expect(curlStatus == 0, "the stream ended normally rather than being cut or left open")
        if curlStatus == nil { await curl.kill() }
        await server.stop()
    }

    /// A docx job routed to `gotenberg`, SIGTERM once it is converting; returns the store, the
    /// job's id and how the server exited (nil: still running after `within` seconds).
    static func sigtermWhileConverting(
        gotenberg: LoopbackHTTPServer,
        grace: Int,
        within: Duration
    ) async throws -> (
        store: String, id: String, status: Int32?, log: String
    ) {
        let store = FileManager.default.temporaryDirectory.path + "/pdfgate-term-\(UUID().uuidString.prefix(8))"
        let server = try await ServerProcess(
            store: store,
            arguments: ["--routes", "DOC_TO_PDF=gotenberg=\(gotenberg.baseURL)", "--shutdown-grace", String(grace)]
        )
        let client = APIClient(base: server.baseURL)
        let created = try await client.oneShot("sample.docx")
        let id = try #require(created.string("job_id"), "\(created.text)")
        _ = try await CrashRestartTests.waitFor(client, id) { $0["phase"] as? String == "converting" }
        server.process.signal(SIGTERM)
        let status = await exitStatus(of: server.process, within: within)
        await server.stop()
        return (store, id, status, server.log)
    }

    @Test("a job running at SIGTERM finishes within the grace period and is filed once")
    func runningJobFinishesWithinGrace() async throws {
        let gotenberg = try Self.slowGotenberg(delay: 2)
        defer { gotenberg.stop() }
        let cut = try await Self.sigtermWhileConverting(gotenberg: gotenberg, grace: 30, within: .seconds(40))
        #expect(cut.status == 0, "serve exited after letting the job finish\n\(cut.log)")

        let server = try await ServerProcess(store: cut.store, arguments: ["--routes", "DOC_TO_PDF=gotenberg=\(gotenberg.baseURL)"])
        let client = APIClient(base: server.baseURL)
        let job = try await client.get("/v1/jobs/\(cut.id)").json
        #expect(job["status"] as? String == "SUCCEEDED", "finished before the exit, not resumed after: \(job)")
        #expect(try await CrashRestartTests.documents(client).count == 1)
        await server.stop()
    }

    @Test("a job that outlives the grace period is cut at its end and resumes at the next start")
    func jobPastGraceResumes() async throws {
        let hanging = try Self.slowGotenberg(delay: nil)
        let cut = try await Self.sigtermWhileConverting(gotenberg: hanging, grace: 1, within: .seconds(20))
        #expect(cut.status == 0, "serve exited once the grace ran out\n\(cut.log)")
        hanging.stop()

        // The same store with a converter that answers: the job picks up where it was cut.
        let working = try Self.slowGotenberg(delay: 0)
        defer { working.stop() }
        let server = try await ServerProcess(store: cut.store, arguments: ["--routes", "DOC_TO_PDF=gotenberg=\(working.baseURL)"])
        let client = APIClient(base: server.baseURL)
        let job = try await CrashRestartTests.waitFor(client, cut.id) { ["SUCCEEDED", "FAILED"].contains($0["status"] as? String ?? "") }
        #expect(job["status"] as? String == "SUCCEEDED", "\(job)")
        #expect(try await CrashRestartTests.documents(client).count == 1)
        await server.stop()
    }
}
