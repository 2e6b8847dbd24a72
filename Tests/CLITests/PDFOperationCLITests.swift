import Foundation
import GatewayTestSupport
import Testing

/// `pdfgate merge|split|pdfa|meta|rotate|encrypt|optimize` as a user runs them: the CLI as a
/// subprocess on a real store, the real qpdf and Ghostscript, results read with poppler-utils.
@Suite("pdfgate PDF operations")
struct PDFOperationCLITests {
    /// Files a fixture PDF and answers its id.
    static func add(_ cli: CLI, _ name: String) async throws -> String {
        let added = try #require(try await cli.json("add", Fixtures.pdf(name)) as? [[String: Any]])
        return try #require(added.first?["id"] as? String)
    }

    static func path(_ cli: CLI, _ document: [String: Any]?) throws -> String {
        cli.store.path + "/data/" + (try #require(document?["path"] as? String))
    }

    @Test func everyOperationFilesWhatItSays() async throws {
        let cli = CLI()
        let twelve = try await Self.add(cli, "many-pages.pdf")
        let one = try await Self.add(cli, "one-page.pdf")

        let merged = try #require(try await cli.json("merge", twelve, one, "--name", "Both") as? [[String: Any]])
        #expect(merged.first?["name"] as? String == "Both")
        #expect(try await pdfinfoPageCount(try Self.path(cli, merged.first)) == 13)

        let parts = try #require(try await cli.json("split", twelve, "--range", "1-2", "--range", "3-") as? [[String: Any]])
        #expect(parts.map { $0["page_count"] as? Int } == [2, 10])

        let archived = try #require(try await cli.json("pdfa", twelve, "--part", "3b") as? [[String: Any]])
        #expect((archived.first?["metadata"] as? [String: Any])?["pdfa"] as? String == "3B")

        let renamed = try #require(try await cli.json("meta", twelve, "--title", "Renamed", "--replace") as? [[String: Any]])
        #expect(renamed.first?["id"] as? String == twelve)
        #expect(try await run("pdfinfo", [try Self.path(cli, renamed.first)]).stdout.contains("Title:           Renamed"))

        let rotated = try #require(try await cli.json("rotate", twelve, "--angle", "180", "--pages", "2") as? [[String: Any]])
        let pages = try await run("pdfinfo", ["-f", "1", "-l", "2", try Self.path(cli, rotated.first)]).stdout
        #expect(pages.contains("Page    1 rot:   0") && pages.contains("Page    2 rot:   180"), "\(pages)")

        let locked = try await run(
            builtProduct("pdfgate"),
            cli.withStore(["encrypt", twelve, "--allow", "print", "--json"]),
            environment: ProcessInfo.processInfo.environment.merging(["PDFGATE_USER_PASSWORD": "open-sesame"]) { $1 }
        )
        #expect(locked.status == 0, "\(locked.stderr)")
        let lockedDocument = try #require((try JSONSerialization.jsonObject(with: Data(locked.stdout.utf8)) as? [[String: Any]])?.first)
        let lockedPath = try Self.path(cli, lockedDocument)
        #expect(try await run("pdfinfo", [lockedPath]).status != 0)
        #expect(try await run("pdfinfo", ["-upw", "open-sesame", lockedPath]).stdout.contains("Encrypted:       yes"))

        let marked = try #require(
            try await cli.json("watermark", twelve, "--image", Fixtures.root + "/web-set/logo.png", "--pages", "2") as? [[String: Any]]
        )
        let images = try await run("pdfimages", ["-list", try Self.path(cli, marked.first)]).stdout
        #expect(images.split(separator: "\n").dropFirst(2).compactMap { Int($0.split(separator: " ").first ?? "") } == [2], "\(images)")

        let optimized = try #require(try await cli.json("optimize", twelve, "--images", "screen") as? [[String: Any]])
        #expect(try await run("qpdf", ["--check", try Self.path(cli, optimized.first)]).status == 0)
        #expect(try await run("pdfinfo", [try Self.path(cli, optimized.first)]).stdout.contains("Optimized:       yes"))

        let fsck = try #require(try await cli.json("fsck") as? [String: Any])
        #expect(fsck["clean"] as? Bool == true)
    }

    /// `convert --password` opens a protected file; the password stays in no job and no file.
    @Test func convertOpensAProtectedPDFWithItsPassword() async throws {
        let cli = CLI()
        let refused = try await cli("convert", Fixtures.pdf("encrypted.pdf"))
        #expect(refused.status == 1 && refused.stderr.contains("wrong_password"), "\(refused.stderr)")
        let converted = try #require(try await cli.json("convert", Fixtures.pdf("encrypted.pdf"), "--password", "secret") as? [[String: Any]])
        let info = try await run("pdfinfo", [try Self.path(cli, converted.first)]).stdout
        #expect(info.contains("Encrypted:       no"), "\(info)")
        let jobs = try await cli("jobs", "--json")
        #expect(jobs.status == 0 && !jobs.stdout.contains("secret"), "\(jobs.stdout)")
        let staged = (try? FileManager.default.contentsOfDirectory(atPath: cli.store.path + "/data/.pdfgate/staging")) ?? []
        #expect(staged.isEmpty, "the job's staging, its password with it, went when it ended: \(staged)")
    }

    /// `convert --merge`: an office file, an ebook and a PDF, each converted by its own tool, in
    /// one document in the order given; `merge` on a file points there.
    @Test func convertMergeFilesOneDocumentInOrder() async throws {
        let cli = CLI()
        let sources = [Fixtures.office("sample.odt"), Fixtures.pdf("many-pages.pdf"), Fixtures.ebook("sample.epub")]
        var alone: [Int] = []
        for source in sources {
            let converted = try #require(try await cli.json("convert", source) as? [[String: Any]])
            alone.append(try #require(converted.first?["page_count"] as? Int))
        }
        let merged = try #require(try await cli.json(["convert", "--merge", "--name", "All three"] + sources) as? [[String: Any]])
        #expect(merged.count == 1 && merged.first?["name"] as? String == "All three", "\(merged)")
        let path = try Self.path(cli, merged.first)
        #expect(try await pdfinfoPageCount(path) == alone.reduce(0, +), "alone: \(alone)")
        // The PDF's twelve pages sit right after the office document's.
        let first = alone[0]
        let atTwelve = try await run("pdftotext", ["-f", "\(first + 1)", "-l", "\(first + 1)", path, "-"]).stdout
        let pageOne = try await run("pdftotext", ["-f", "1", "-l", "1", Fixtures.pdf("many-pages.pdf"), "-"]).stdout
        #expect(atTwelve.trimmingCharacters(in: .whitespacesAndNewlines) == pageOne.trimmingCharacters(in: .whitespacesAndNewlines))

        let wrongCommand = try await cli("merge", Fixtures.office("sample.odt"), Fixtures.pdf("one-page.pdf"))
        #expect(wrongCommand.status != 0 && wrongCommand.stderr.contains("convert --merge"), "\(wrongCommand.stderr)")
    }

    @Test func badRequestsSayWhatIsWrongAndFileNothing() async throws {
        let cli = CLI()
        let twelve = try await Self.add(cli, "many-pages.pdf")
        let outside = try await cli("rotate", twelve, "--angle", "90", "--pages", "13")
        #expect(outside.status == 1 && outside.stderr.contains("page_range_out_of_bounds"), "\(outside.stderr)")
        let angle = try await cli("rotate", twelve, "--angle", "45")
        #expect(angle.status != 0 && angle.stderr.contains("multiple of 90"))
        let lonely = try await cli("merge", twelve)
        #expect(lonely.status != 0 && lonely.stderr.contains("two or more"))
        let listed = try #require(try await cli.json("ls") as? [String: Any])
        #expect((listed["documents"] as? [Any])?.count == 1, "\(listed)")
    }
}
