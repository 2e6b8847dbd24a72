import Foundation
import GatewayTestSupport
import Testing

/// `/dav/` driven by real WebDAV clients against a real `pdfgate serve`: litmus (RFC 4918
/// conformance, Debian's package) and rclone.
@Suite("WebDAV with real clients", .serialized)
struct WebDAVClientTests {
    @Test("litmus passes every check of its suites")
    func litmus() async throws {
        try await using(await ServerProcess(arguments: [])) { server in
            let workspace = TemporaryDirectory("litmus")
            // litmus writes its debug.log into the working directory.
            let result = try await run(
                "/bin/bash",
                ["-c", #"cd "$1" && exec litmus "$2""#, "litmus", workspace.path, server.baseURL + "/dav/"]
            )
            let summaries = result.stdout.matches(of: /summary for `(\w+)': of (\d+) tests run: (\d+) passed, (\d+) failed/)
            let bySuite = Dictionary(summaries.map { (String($0.1), (run: Int($0.2)!, passed: Int($0.3)!)) }) { first, _ in first }
            for suite in WebDAVClientTests.litmusSuites {
                let outcome = try #require(bySuite[suite.name], "litmus ran \(suite.name):\n\(result.stdout.suffix(3000))")
                #expect(outcome.run == suite.checks && outcome.passed == suite.checks, "\(suite.name):\n\(result.stdout.suffix(3000))")
            }
        }
    }

    /// Each suite and how many checks it runs when the server supports all of them.
    static let litmusSuites: [(name: String, checks: Int)] = [("basic", 16), ("copymove", 13), ("props", 30), ("locks", 41), ("http", 4)]

    @Test("rclone copies a library in and out byte for byte, a move keeps the id, sync and purge delete through the library")
    func rclone() async throws {
        try await using(await ServerProcess(arguments: [])) { server in
            let local = TemporaryDirectory("rclone-local")
            let tree = [
                "Invoices/March.pdf": "one-page.pdf", "Invoices/2026/April.pdf": "many-pages.pdf", "Cover.pdf": "linearized.pdf",
            ]
            for (path, fixture) in tree {
                let target = local.path + "/" + path
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: Fixtures.pdf(fixture), toPath: target)
            }
            // What a file manager leaves beside PDFs is kept too, as it is.
            try Data("notes beside the PDFs\n".utf8).write(to: URL(fileURLWithPath: local.path + "/Invoices/notes.txt"))

            let environment = [
                "RCLONE_CONFIG_GATEWAY_TYPE": "webdav", "RCLONE_CONFIG_GATEWAY_URL": server.baseURL + "/dav/",
                "RCLONE_CONFIG_GATEWAY_VENDOR": "other", "HOME": local.path, "PATH": "/usr/bin:/bin",
            ]
            func rclone(_ arguments: String...) async throws -> ProcessResult {
                let result = try await run("/usr/bin/rclone", arguments + ["--config", "/dev/null"], environment: environment)
                #expect(result.status == 0, "rclone \(arguments.joined(separator: " ")):\n\(result.stderr.suffix(2000))")
                return result
            }

            _ = try await rclone("copy", local.path, "gateway:Backup")
            _ = try await rclone("check", local.path, "gateway:Backup", "--download")
            let api = APIClient(base: server.baseURL)
            let listed = try await api.get("/v1/documents?folder=Backup&recursive=true")
            let documents = try #require(listed.json["documents"] as? [[String: Any]])
            #expect(
                Set(documents.compactMap { $0["path"] as? String }) == [
                    "default/Backup/Invoices/March.pdf", "default/Backup/Invoices/2026/April.pdf", "default/Backup/Cover.pdf",
                ]
            )
            let march = try #require(documents.first { $0["name"] as? String == "March" }?["id"] as? String)

            _ = try await rclone("moveto", "gateway:Backup/Invoices/March.pdf", "gateway:Backup/Archive/March 2026.pdf")
            let moved = try await api.get("/v1/documents/\(march)")
            #expect(moved.json["path"] as? String == "default/Backup/Archive/March 2026.pdf", "a WebDAV move keeps the id: \(moved.json)")

            let back = TemporaryDirectory("rclone-back")
            _ = try await rclone("copy", "gateway:Backup", back.path)
            #expect(
                FileManager.default.contentsEqual(atPath: back.path + "/Archive/March 2026.pdf", andPath: Fixtures.pdf("one-page.pdf"))
                    && FileManager.default.contentsEqual(atPath: back.path + "/Invoices/notes.txt", andPath: local.path + "/Invoices/notes.txt")
            )

            try FileManager.default.removeItem(atPath: local.path + "/Cover.pdf")
            try FileManager.default.removeItem(atPath: local.path + "/Invoices/March.pdf")
            _ = try await rclone("sync", local.path, "gateway:Backup")
            _ = try await rclone("check", local.path, "gateway:Backup", "--download")
            let synced = try await api.get("/v1/documents?folder=Backup&recursive=true")
            #expect((synced.json["documents"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["April"])

            _ = try await rclone("purge", "gateway:Backup")
            let purged = try await api.get("/v1/folders")
            #expect((purged.json["folders"] as? [[String: Any]])?.isEmpty == true, "\(purged.json)")
        }
    }

    @Test(
        "rclone copies in a folder with a password-protected and a damaged PDF: kept as they came, with what could not be read (a folder tree; a bucket)",
        arguments: [false, true]
    )
    func unreadablePDFsAreKept(inBucket: Bool) async throws {
        let s3 = inBucket ? try TestS3.shared() : nil
        let bucket = try s3?.freshBucket()
        let arguments = bucket.map { ["--documents", "s3://\($0)/library"] } ?? []
        try await using(await ServerProcess(arguments: arguments, environment: s3?.environment ?? [:])) { server in
            let local = TemporaryDirectory("rclone-kept")
            for (name, fixture) in ["Statement.pdf": "encrypted.pdf", "Cut short.pdf": "truncated.pdf", "Plain.pdf": "one-page.pdf"] {
                try FileManager.default.copyItem(atPath: Fixtures.pdf(fixture), toPath: local.path + "/" + name)
            }
            let environment = [
                "RCLONE_CONFIG_GATEWAY_TYPE": "webdav", "RCLONE_CONFIG_GATEWAY_URL": server.baseURL + "/dav/",
                "RCLONE_CONFIG_GATEWAY_VENDOR": "other", "HOME": local.path, "PATH": "/usr/bin:/bin",
            ]
            let copied = try await run("/usr/bin/rclone", ["copy", local.path, "gateway:Bank", "--config", "/dev/null"], environment: environment)
            #expect(copied.status == 0, "\(copied.stderr.suffix(2000))")
            let checked = try await run(
                "/usr/bin/rclone",
                ["check", local.path, "gateway:Bank", "--download", "--config", "/dev/null"],
                environment: environment
            )
            #expect(checked.status == 0, "byte for byte: \(checked.stderr.suffix(2000))")

            let api = APIClient(base: server.baseURL)
            let listed = try await api.get("/v1/documents?folder=Bank")
            let documents = try #require(listed.json["documents"] as? [[String: Any]])
            func metadata(_ name: String) -> [String: Any]? {
                documents.first { $0["name"] as? String == name }?["metadata"] as? [String: Any]
            }
            let statement = try #require(metadata("Statement"), "\(listed.text)")
            #expect(statement["encrypted"] as? Bool == true)
            #expect((statement["warning"] as? String)?.contains("password") == true, "\(statement)")
            let cut = try #require(metadata("Cut short"), "\(listed.text)")
            #expect((cut["warning"] as? String)?.contains("damaged") == true, "\(cut)")
            #expect(metadata("Plain")?["warning"] is NSNull, "a PDF read whole has no warning")
            #expect(metadata("Plain")?["page_count"] as? Int == 1)

            // A job that must read it refuses, saying why; the document stays.
            let id = try #require(documents.first { $0["name"] as? String == "Statement" }?["id"] as? String)
            let thumbnail = try await api.get("/v1/documents/\(id)/thumbnail")
            #expect(thumbnail.status == 422, "\(thumbnail.text)")
            #expect(
                try await api.get("/v1/documents/\(id)/content").body
                    == Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("encrypted.pdf"))))
            )
        }
    }
}
