import Foundation
import GatewayTestSupport
import Testing

/// `pdfgate convert` and `pdfgate jobs` end to end: real LibreOffice/Chromium/Calibre, real
/// SQLite, real Poppler, the CLI as a subprocess.
@Suite("pdfgate convert")
struct ConvertCLITests {
    @Test func officeAndEbookFilesBecomeFiledPDFs() async throws {
        let cli = CLI()
        let converted = try #require(
            try await cli.json("convert", Fixtures.office("sample.docx"), Fixtures.ebook("sample.epub"), "--folder", "Inbox") as? [[String: Any]]
        )
        #expect(converted.count == 2)
        for document in converted {
            let path = try #require(document["path"] as? String)
            #expect(path.hasPrefix("default/Inbox/"))
            let file = cli.store.path + "/data/" + path
            #expect(document["page_count"] as? Int == (try await pdfinfoPageCount(file)), "\(path)")
        }
        let jobs = try #require(try await cli.json("jobs") as? [[String: Any]])
        #expect(jobs.count == 2 && jobs.allSatisfy { $0["status"] as? String == "SUCCEEDED" && $0["document_id"] is String })
        let fsck = try #require(try await cli.json("fsck") as? [String: Any])
        #expect(fsck["clean"] as? Bool == true)
    }

    @Test func aURLOnAnAllowedLoopbackHostIsPrinted() async throws {
        let cli = CLI()
        let server = try LoopbackHTTPServer { _, response in
            try response.respond(
                status: 200,
                headers: [("Content-Type", "text/html")],
                text: "<html><body><h1>Hello from loopback</h1></body></html>"
            )
        }
        defer { server.stop() }
        let url = server.url("/hello")
        let refused = try await cli("convert", url)
        #expect(refused.status == 1 && refused.stderr.contains("url_forbidden"), "loopback is refused by default")

        let converted = try #require(
            try await cli.json("convert", url, "--allow-host", "127.0.0.1:\(server.port)", "--name", "Hello") as? [[String: Any]]
        )
        let path = try #require(converted.first?["path"] as? String)
        #expect(path == "default/Hello.pdf")
        #expect(try await run("pdftotext", [cli.store.path + "/data/" + path, "-"]).stdout.contains("Hello from loopback"))
    }

    /// `--option key=value` takes the API's option keys, checked by the same rules.
    @Test func conversionOptionsGoAlongAndAreChecked() async throws {
        let cli = CLI()
        let server = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            try response.respond(status: 200, headers: [("Content-Type", "text/html")], text: "<p>UA=\(request.header("User-Agent") ?? "-")</p>")
        }
        defer { server.stop() }
        let host = "127.0.0.1:\(server.port)"
        let unknown = try await cli("convert", server.url("/"), "--option", "scael=1", "--allow-host", host)
        #expect(unknown.status == 1 && unknown.stderr.contains("unknown_option") && unknown.stderr.contains("scale"), "\(unknown.stderr)")
        let outOfRange = try await cli("convert", server.url("/"), "--option", "scale=9", "--allow-host", host)
        #expect(outOfRange.status == 1 && outOfRange.stderr.contains("invalid_options"), "\(outOfRange.stderr)")

        let converted = try #require(
            try await cli.json("convert", server.url("/"), "--option", "user_agent=PdfgateCLI/1", "--allow-host", host) as? [[String: Any]]
        )
        let path = try #require(converted.first?["path"] as? String)
        #expect(try await run("pdftotext", [cli.store.path + "/data/" + path, "-"]).stdout.contains("UA=PdfgateCLI/1"))
    }

    /// `--converter gotenberg=URL` sends the file to that Gotenberg (here a stand-in on
    /// 127.0.0.1), and off a terminal the progress comes as a line per status or phase.
    @Test func aGotenbergBackendChosenOnTheCommandLineConverts() async throws {
        let cli = CLI()
        let pdf = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.pdf("one-page.pdf"))))
        let seen = Locked<[String]>([])
        let gotenberg = try LoopbackHTTPServer { request, response in
            _ = try request.discardBody()
            seen.update { $0.append(request.path + " " + (request.header("Gotenberg-Trace") ?? "-")) }
            try response.respond(status: 200, headers: [("Content-Type", "application/pdf")], body: pdf)
        }
        defer { gotenberg.stop() }
        let result = try await cli("convert", Fixtures.office("sample.docx"), "--converter", "gotenberg=\(gotenberg.baseURL)", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let documents = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(documents.first?["page_count"] as? Int == 1)
        let jobs = try #require(try await cli.json("jobs") as? [[String: Any]])
        let jobID = try #require(jobs.first?["job_id"] as? String)
        #expect(seen.value == ["/forms/libreoffice/convert \(jobID)"], "one request, traced with the job id")
        for line in ["sample.docx: PROCESSING converting", "sample.docx: SUCCEEDED"] {
            #expect(result.stderr.contains(line), "progress line '\(line)' in: \(result.stderr)")
        }
    }

    /// `--timeout` bounds the whole job: a converter that never answers fails it as
    /// `timed_out` in about that time, exit status 1, nothing filed.
    @Test func theTimeoutOptionBoundsTheJob() async throws {
        let cli = CLI()
        let gotenberg = try LoopbackHTTPServer { _, response in response.hang() }
        defer { gotenberg.stop() }
        let start = ContinuousClock.now
        let result = try await cli("convert", Fixtures.office("sample.docx"), "--converter", "gotenberg=\(gotenberg.baseURL)", "--timeout", "2")
        #expect(result.status == 1)
        #expect(result.stderr.contains("timed_out"), "\(result.stderr)")
        #expect(start.duration(to: .now) < .seconds(8), "the CLI included its own start-up and shutdown")
        let listing = try #require(try await cli.json("ls", "--recursive") as? [String: Any])
        #expect((listing["documents"] as? [Any])?.isEmpty == true)
    }

    @Test func aFailedConversionExitsNonZeroAndFilesNothing() async throws {
        let cli = CLI()
        let result = try await cli("convert", Fixtures.office("protected.docx"))
        #expect(result.status == 1)
        #expect(result.stderr.contains("password_protected") && result.stderr.contains("password"))
        let listing = try #require(try await cli.json("ls", "--recursive") as? [String: Any])
        #expect((listing["documents"] as? [Any])?.isEmpty == true)
        let failed = try #require(try await cli.json("jobs", "--status", "failed") as? [[String: Any]])
        #expect(failed.first?["error"] as? String == "password_protected")
    }
}
