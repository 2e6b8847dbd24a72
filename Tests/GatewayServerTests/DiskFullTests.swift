import Foundation
import GatewayTestSupport
import Testing

/// A store on a file system that fills up. The server runs in a mount namespace of its
/// own with an 8 MiB tmpfs over its store (`unshare`), so nothing outside the test is filled;
/// once it stops, `fsck` runs in the same namespace on what the server left.
@Suite("a full disk")
struct DiskFullTests {
    /// `serve` on a tmpfs of `size`, then `fsck --json` into `report` after it stops.
    static let script = #"""
        set -e
        mount -t tmpfs -o size="$SIZE" tmpfs "$STORE"
        "$PDFGATE" serve --host 127.0.0.1 --port 0 --store "$STORE" --log-level notice &
        pid=$!
        trap 'kill -TERM $pid' TERM
        wait $pid || wait $pid || true
        "$PDFGATE" fsck --json --store "$STORE" > "$REPORT" 2>&1 || true
        """#

    /// `serve` with its store on an 8 MiB tmpfs of its own mount namespace; `fsck --json` writes
    /// `report` once it stops.
    static func serverOnTmpfs(store: String, report: String) async throws -> ServerProcess {
        let unshare = getuid() == 0 ? ["--mount"] : ["--mount", "--map-root-user"]
        return try await ServerProcess(
            store: store,
            environment: ["SIZE": "8m", "STORE": store, "REPORT": report, "PDFGATE": builtProduct("pdfgate")],
            executable: "/usr/bin/unshare",
            commandLine: unshare + ["/bin/sh", "-c", script]
        )
    }

    static func expectClean(_ report: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? "no report"
        let fsck = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        #expect(fsck?["clean"] as? Bool == true, "\(text)", sourceLocation: sourceLocation)
    }

    @Test("an upload past the free space answers 507 insufficient_storage, keeps nothing and harms no filed document")
    func uploadsThatRunOutOfSpace() async throws {
        let work = TemporaryDirectory("pdfgate-diskfull")
        let store = work.file("store")
        let report = work.file("fsck.json")
        let big = work.file("big.bin")
        // 20 MB of incompressible bytes: more than the whole file system holds.
        let written = try await run("/bin/dd", ["if=/dev/urandom", "of=\(big)", "bs=1M", "count=20", "status=none"])
        try #require(written.status == 0, "dd: \(written.stderr)")
        try await using(await Self.serverOnTmpfs(store: store, report: report)) { server in
            let client = APIClient(base: server.baseURL)
            /// Files `path` into the library as `name` (`POST /v1/documents`, the raw PDF).
            func importPDF(_ name: String, _ path: String) async throws -> APIClient.Answer {
                try await client.send(
                    "POST",
                    "/v1/documents?filename=\(name)",
                    body: .file(path: path),
                    headers: [("Content-Type", "application/pdf")]
                )
            }

            // One document filed while there is room.
            let filed = try await importPDF("kept.pdf", Fixtures.pdf("many-pages.pdf"))
            #expect(filed.status == 201, "\(filed.text)")
            let id = try #require(filed.string("id"))

            // A one-shot create and a library import that do not fit: 507, and the reason.
            for path in ["/v1/jobs?filename=huge.docx", "/v1/documents?filename=huge.pdf"] {
                let answer = try await client.send("POST", path, body: .file(path: big), headers: [("Content-Type", "application/octet-stream")])
                #expect(answer.status == 507, "\(path): \(answer.status) \(answer.text)")
                #expect(answer.string("error") == "insufficient_storage", "\(path): \(answer.text)")
                #expect(answer.string("error_message")?.contains("free space") == true, "\(path): \(answer.text)")
            }

            // Still answering, and the filed document is whole.
            #expect(try await client.get("/healthz").status == 200)
            let content = try await client.get("/v1/documents/\(id)/content")
            #expect(content.status == 200)
            #expect(Data(content.body) == (try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("many-pages.pdf")))))
            // Room again (nothing partial was kept): the next upload fits.
            let again = try await importPDF("after.pdf", Fixtures.pdf("one-page.pdf"))
            #expect(again.status == 201, "\(again.text)")
            await server.stop()

            Self.expectClean(report)
        }
    }

    @Test("when the database's own disk fills, writes answer 507 insufficient_storage, reads go on, and nothing is lost once space is freed")
    func databaseOnAFullDisk() async throws {
        let work = TemporaryDirectory("pdfgate-dbfull")
        let store = work.file("store")
        let report = work.file("fsck.json")
        try await using(await Self.serverOnTmpfs(store: store, report: report)) { server in
            let client = APIClient(base: server.baseURL)
            let filed = try await client.send(
                "POST",
                "/v1/documents?filename=kept.pdf",
                body: .file(path: Fixtures.pdf("many-pages.pdf")),
                headers: [("Content-Type", "application/pdf")]
            )
            let id = try #require(filed.string("id"), "\(filed.text)")

            // Fill what is left of the tmpfs, seen through the server's own mount namespace
            // (`unshare` execs the shell, so its pid is in it).
            let filler = "/proc/\(server.process.pid)/root\(store)/filler"
            _ = try await run("/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=64k", "status=none"])
            let size = (try? FileManager.default.attributesOfItem(atPath: filler)[.size] as? Int) ?? 0
            try #require(size > 1 << 20, "the filler did not fill the store's file system (\(size) bytes)")

            // Folders are rows only: the database's writes are what run out of room.
            var created: [String] = []
            var refused = 0
            for index in 0..<400 where refused < 3 {
                let path = "Full/" + String(repeating: "folder-\(index)-", count: 8)
                let answer = try await client.post("/v1/folders", json: ["path": path])
                switch answer.status {
                case 201: created.append(path)
                case 507:
                    refused += 1
                    #expect(answer.string("error") == "insufficient_storage", "\(answer.text)")
                    #expect(answer.string("error_message")?.contains("free space") == true, "\(answer.text)")
                default: Issue.record("folder \(index): \(answer.status) \(answer.text)")
                }
            }
            #expect(refused > 0, "400 folders fit on a full disk: the database never ran out of room")

            // Reads go on, and the filed document is whole.
            #expect(try await client.get("/healthz").status == 200)
            #expect(try await client.get("/v1/documents/\(id)").status == 200)
            let content = try await client.get("/v1/documents/\(id)/content")
            #expect(Data(content.body) == (try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("many-pages.pdf")))))

            // Space again: writes succeed, and every folder that was answered 201 is there.
            try FileManager.default.removeItem(atPath: filler)
            let after = try await client.post("/v1/folders", json: ["path": "After/the/fill"])
            #expect(after.status == 201, "\(after.text)")
            let listed = try await client.get("/v1/folders?recursive=true")
            let paths = Set(((listed.json["folders"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String })
            for path in created { #expect(paths.contains(path), "\(path) was created, then lost") }
            await server.stop()

            Self.expectClean(report)
        }
    }
}
