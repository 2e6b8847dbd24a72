import Foundation
import GatewayTestSupport
import Testing

/// `pdfgate ocr` as a user runs it: a scanned document gets its text layer in place; a language
/// that is not a code, or not installed, is refused with what to do.
@Suite("pdfgate ocr")
struct OCRCLITests {
    @Test func ocrMakesAScanSearchable() async throws {
        let cli = CLI()
        let added = try #require(try await cli.json("add", try await ScanFixtures.file("scan.pdf")) as? [[String: Any]])
        let id = try #require(added.first?["id"] as? String)

        let notACode = try await cli("ocr", id, "--lang", "eng+../deu")
        #expect(notACode.status != 0 && notACode.stderr.contains("not a Tesseract language code"), "\(notACode.stderr)")
        let missing = try await cli("ocr", id, "--lang", "eng+xyz")
        #expect(missing.status == 1 && missing.stderr.contains("ocr_language_unavailable"), "\(missing.stderr)")
        #expect(missing.stderr.contains("tesseract-ocr-xyz"), "\(missing.stderr)")

        let done = try #require(try await cli.json("ocr", id, "--lang", "eng+deu", "--replace", "--timeout", "240") as? [[String: Any]])
        #expect(done.first?["id"] as? String == id)
        let path = cli.store.path + "/data/" + (try #require(done.first?["path"] as? String))
        let text = try await run("pdftotext", ["-raw", "-f", "1", "-l", "1", path, "-"]).stdout
        let rate = WordErrorRate(reference: try await ScanFixtures.text(1), hypothesis: text)
        #expect(rate.rate < 0.02, "\(rate.errors) of \(rate.words) words wrong")
    }
}
