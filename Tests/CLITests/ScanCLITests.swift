import Foundation
import GatewayTestSupport
import Testing

/// `pdfgate scan` end to end: images made by ImageMagick, the real img2pdf, the CLI as a
/// subprocess, the result read back with `pdfinfo`.
@Suite("pdfgate scan")
struct ScanCLITests {
    @Test func imagesBecomeOnePaperSizedDocument() async throws {
        let cli = CLI()
        let directory = TemporaryDirectory()
        var images: [String] = []
        for (index, size) in ["400x600", "600x400"].enumerated() {
            let path = directory.file("page-\(index + 1).png")
            let made = try await run(try which("convert"), ["-size", size, "xc:white", "-units", "PixelsPerInch", "-density", "100", path])
            #expect(made.status == 0, "\(made.stderr)")
            images.append(path)
        }
        let scanned = try #require(
            try await cli.json(["scan"] + images + ["--paper", "8.5x11", "--folder", "Scans", "--name", "Letter"]) as? [[String: Any]]
        )
        #expect(scanned.count == 1)
        let document = try #require(scanned.first)
        #expect(document["path"] as? String == "default/Scans/Letter.pdf")
        let file = cli.store.path + "/data/" + (try #require(document["path"] as? String))
        #expect(try await pdfinfoPageCount(file) == 2)
        // Fitted into Letter, each page turned to its image's orientation.
        let info = try await run(try which("pdfinfo"), ["-f", "1", "-l", "2", file]).stdout
        #expect(info.contains("Page    1 size:  612 x 792 pts"), "\(info)")
        #expect(info.contains("Page    2 size:  792 x 612 pts"), "\(info)")

        let refused = try await cli("scan", images[0], "--paper", "A4")
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--paper is WIDTHxHEIGHT in inches"), "\(refused.stderr)")
    }
}
