import Foundation
import GatewayTestSupport
import Testing

/// A `pdfgate` that lives where the sandbox mounts private directories: a copy of the
/// binary under /tmp, in a directory whose name has a space and a non-ASCII letter, with its store
/// beside it and its TMPDIR reached through a symlink. Every local tool runs sealed from there.
@Suite("an install under /tmp", .serialized)
struct RelocatedInstallTests {
    /// `/tmp/pdfgate-relocated-…/with space é/` holding `pdfgate`, `data/` and `tmp` (a symlink).
    final class Install: Sendable {
        let root: String
        let directory: String
        let executable: String
        let store: String
        let temporary: String

        init() throws {
            // /tmp itself, not $TMPDIR: /tmp is what the sandbox covers with its own tmpfs.
            root = "/tmp/pdfgate-relocated-\(UUID().uuidString.prefix(8))"
            directory = root + "/with space é"
            executable = directory + "/pdfgate"
            store = directory + "/data"
            temporary = directory + "/tmp"
            let files = FileManager.default
            try files.createDirectory(atPath: root + "/real tmp", withIntermediateDirectories: true)
            try files.createDirectory(atPath: store, withIntermediateDirectories: true)
            try files.copyItem(atPath: builtProduct("pdfgate"), toPath: executable)
            try files.createSymbolicLink(atPath: temporary, withDestinationPath: root + "/real tmp")
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }
    }

    @Test("office, ebook and URL jobs convert in the sandbox and are inspected, from a copy under /tmp")
    func everyToolRunsSealedFromTmp() async throws {
        let install = try Install()
        let page = try LoopbackHTTPServer { _, response in
            try response.respond(status: 200, headers: [("Content-Type", "text/html")], text: "<h1>Relocated page</h1>")
        }
        defer { page.stop() }
        let server = try await ServerProcess(
            store: install.store,
            arguments: ["--allow-host", "127.0.0.1"],
            environment: ["TMPDIR": install.temporary, "PDFGATE_EXECUTABLE": ""],
            executable: install.executable
        )
        try await using(server) { server in
            let client = APIClient(base: server.baseURL)

            let ready = try await client.get("/readyz")
            #expect(ready.status == 200, "readyz: \(ready.text)")

            var jobs: [(what: String, id: String)] = []
            let office = try await client.oneShot("sample.docx")
            jobs.append(("office", try #require(office.string("job_id"), "\(office.text)")))
            let ebook = try await client.send(
                "POST",
                "/v1/jobs?filename=sample.epub",
                body: .file(path: Fixtures.ebook("sample.epub")),
                headers: [("Content-Type", "application/octet-stream")]
            )
            jobs.append(("ebook", try #require(ebook.string("job_id"), "\(ebook.text)")))
            let url = try await client.post("/v1/jobs", json: ["type": "URL_TO_PDF", "url": page.url("/relocated")])
            jobs.append(("url", try #require(url.string("job_id"), "\(url.text)")))

            for (what, id) in jobs {
                let job = try await JobAPITests.finish(client, id, timeout: 150)
                #expect(job["status"] as? String == "SUCCEEDED", "\(what): \(job)\n\(server.log.suffix(2000))")
                // The inspector read the result: its page count is in the filed document.
                let document = job["document"] as? [String: Any]
                #expect((document?["page_count"] as? Int ?? 0) >= 1, "\(what): \(job)")
            }
            await server.stop()
            // The store beside the binary holds the documents, and the library agrees with it.
            let fsck = try await run(install.executable, ["fsck", "--json", "--store", install.store])
            let report = try JSONSerialization.jsonObject(with: Data(fsck.stdout.utf8)) as? [String: Any]
            #expect(report?["clean"] as? Bool == true, "\(fsck.stdout) \(fsck.stderr)")
        }
    }
}
