import Foundation
import GatewayTestSupport
import Testing

/// The Python `gotenberg-client` (PyPI, pinned in scripts/python-venv.sh),
/// unchanged, against a live `pdfgate serve` that requires tokens — its basic auth carrying
/// our token. scripts/gotenberg-client-check.py makes the calls; every file it got is checked
/// here with Poppler's tools.
@Suite("gotenberg-client against pdfgate")
struct GotenbergClientTests {
    static let repository = (Fixtures.root as NSString).deletingLastPathComponent

    @Test("every call of Gotenberg's Python client gets Gotenberg's answer, made by our engine")
    func pythonClient() async throws {
        try await using(await ServerProcess(arguments: ["--auth", "tokens"])) { server in
            let token = try await OwnerIsolationTests.token(server.store, owner: "migrating-team")
            let venv = try await run("/bin/bash", [Self.repository + "/scripts/python-venv.sh"])
            let bin = venv.stdout.split(separator: "\n").last.map(String.init)
            let python = try #require(bin, "\(venv.stderr)") + "/python"
            let out = TemporaryDirectory("gotenberg-client")
            let script = Self.repository + "/scripts/gotenberg-client-check.py"
            let called = try await run(python, [script, server.baseURL, token, Fixtures.root, out.path])
            try #require(called.status == 0, "the client failed:\n\(called.stderr.suffix(3000))")
            let results = try #require(try JSONSerialization.jsonObject(with: Data(called.stdout.utf8)) as? [String: [String: Any]])
            func file(_ name: String) throws -> String { try #require(results[name]?["file"] as? String, "\(name): \(results[name] ?? [:])") }
            func info(_ path: String) async throws -> String { try await run("/usr/bin/pdfinfo", ["-f", "1", "-l", "1", path]).stdout }
            func text(_ path: String) async throws -> String { try await run("/usr/bin/pdftotext", [path, "-"]).stdout }
            func pages(_ path: String) async throws -> Int { Int(try await info(path).firstMatch(of: /Pages:\s+(\d+)/)?.1 ?? "") ?? 0 }

            #expect(results["health"]?["text"] as? String == "up")
            #expect(results["version"]?["text"] as? String == "8.36.0")
            #expect(try await pages(try file("office")) >= 1)
            #expect(results["office_zip"]?["entries"] as? [String] == ["sample.docx.pdf", "sample.odt.pdf"], "\(results["office_zip"] ?? [:])")
            #expect(try await pages(try file("office_merged")) >= 2)
            #expect(try await pages(try file("merge")) == 4)
            #expect(results["split"]?["entries"] as? [String] == ["many-pages_0.pdf", "many-pages_1.pdf", "many-pages_2.pdf"])
            let splitDirectory = try #require(results["split"]?["directory"] as? String)
            #expect(try await pages(splitDirectory + "/many-pages_2.pdf") == 2, "12 pages in fives: 5, 5, 2")
            #expect(try await info(try file("rotate")).firstMatch(of: /rot:\s+90/) != nil)
            let locked = try file("encrypt")
            #expect(try await run("/usr/bin/pdfinfo", [locked]).status != 0, "the PDF needs its password")
            #expect(try await run("/usr/bin/pdfinfo", ["-upw", "s3cret", locked]).status == 0)
            // Drawn at 45°, the word comes out of pdftotext a letter or two per line.
            #expect(try await text(try file("watermark")).filter { !$0.isWhitespace }.contains("DRAFT"))
            let described = try await info(try file("metadata"))
            #expect(described.contains("Title:           Minutes") && described.contains("Author:          The board"), "\(described)")
            #expect(try await text(try file("html")).contains("Hello from the client"))
            // The client's left margin, 50.8 mm (144 pt), plus the body's 8 px (6 pt).
            let left = try await WordBox.of("Hello", in: try file("html"))?.xMin
            #expect(left.map { $0 > 145 && $0 < 155 } == true, "\(String(describing: left))")
            let minutes = try await text(try file("markdown"))
            #expect(minutes.contains("Minutes") && minutes.contains("three") && !minutes.contains("**"), "\(minutes)")
            // The screenshot: a 640 × 360 JPEG of the green page, as ImageMagick reads it.
            #expect(results["screenshot"]?["content_type"] as? String == "image/jpeg", "\(results["screenshot"] ?? [:])")
            let shot = try await run(
                "/usr/bin/identify",
                ["-format", "%m %w %h %[fx:int(255*p{320,300}.r)] %[fx:int(255*p{320,300}.g)]", try file("screenshot")]
            ).stdout
            let seen = shot.split(separator: " ").map(String.init)
            #expect(seen.prefix(3) == ["JPEG", "640", "360"], "\(shot)")
            #expect(seen.count == 5 && (Int(seen[3]) ?? 255) < 40 && (Int(seen[4]) ?? 0) > 215, "green, give or take JPEG's loss: \(shot)")
            // Refusals as the client expects them: Gotenberg's statuses and words.
            #expect(results["loopback_url"]?["status"] as? Int == 403 && results["loopback_url"]?["body"] as? String == "Forbidden")
            #expect(results["wrong_password"]?["status"] as? Int == 401)
        }
    }

    /// Point 5's other half: pdfgate as a Gotenberg *client* (its `gotenberg` backend) pointed at
    /// a second pdfgate's Gotenberg routes, converting real documents end to end — an office file,
    /// and an HTML bundle sent as Gotenberg takes a page's files.
    @Test("our gotenberg backend converts through a second pdfgate's Gotenberg API")
    func pdfgateBehindPdfgate() async throws {
        try await using(await ServerProcess()) { converter in
            try await using(await ServerProcess(arguments: ["--routes", "DOC_TO_PDF=gotenberg=\(converter.baseURL)"])) { front in
                let client = APIClient(base: front.baseURL)
                let office = try await client.oneShot("sample.docx")
                let officeJob = try await JobAPITests.finish(client, try #require(office.string("job_id"), "\(office.text)"))
                #expect(officeJob["status"] as? String == "SUCCEEDED", "\(officeJob)")
                #expect((officeJob["document"] as? [String: Any])?["page_count"] as? Int ?? 0 >= 1)

                let scratch = TemporaryDirectory("bundle-through-gotenberg")
                let site = scratch.file("site.zip")
                let zipped = try await run(
                    "/usr/bin/python3",
                    [
                        "-c",
                        """
                        import zipfile, sys
                        with zipfile.ZipFile(sys.argv[1], "w") as z:
                            z.writestr("index.html", '<html><head><link rel="stylesheet" href="site.css"></head><body><h1>Through</h1></body></html>')
                            z.writestr("site.css", 'h1::after { content: " the other gateway"; }')
                        """, site,
                    ]
                )
                try #require(zipped.status == 0, "\(zipped.stderr)")
                let bundle = try await client.send(
                    "POST",
                    "/v1/jobs?filename=site.zip",
                    body: .file(path: site),
                    headers: [("Content-Type", "application/octet-stream")]
                )
                let bundleJob = try await JobAPITests.finish(client, try #require(bundle.string("job_id"), "\(bundle.text)"))
                #expect(bundleJob["status"] as? String == "SUCCEEDED", "\(bundleJob)")
                let path = front.store + "/" + (try #require((bundleJob["document"] as? [String: Any])?["path"] as? String))
                #expect(try await run("/usr/bin/pdftotext", [path, "-"]).stdout.contains("Through the other gateway"))
                // The work was the second gateway's: its own jobs list shows them.
                let behind = try await APIClient(base: converter.baseURL).get("/v1/jobs").json["jobs"] as? [[String: Any]]
                #expect(behind?.count == 2, "\(String(describing: behind))")
            }
        }
    }
}
