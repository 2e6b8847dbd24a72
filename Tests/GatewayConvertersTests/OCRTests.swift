import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@testable import GatewayPDFTools
@testable import GatewaySandbox

/// The `ocr` operation with the real Tesseract, Poppler and qpdf, in the real sandbox, on pages
/// of known text (`ScanFixtures`): the words are found where the page shows them, the images
/// are untouched, and what cannot work fails with its code. Each page read costs seconds.
@Suite("OCR with Tesseract", .serialized, .timeLimit(.minutes(5)))
struct OCRTests {
    let directory = TemporaryDirectory("pdfgate-ocr")
    let tools = LocalPDFOperator(sandbox: ConverterSandbox())

    /// `ocr` on `pdf`, answering the PDF it made and the text it kept beside it.
    func ocr(_ pdf: String, _ settings: PDFOperation.OCR, work: String = "work") async throws -> (path: String, text: OCRPageText?) {
        let outputs = try await tools.apply(
            [.ocr(settings)],
            to: pdf,
            secrets: JobSecrets(),
            work: directory.path + "/" + work,
            deadline: .now + .seconds(240)
        )
        try #require(outputs.count == 1)
        return (outputs[0], OCRPageText.read(beside: outputs[0]))
    }

    /// The job failure `body` throws.
    func failure(_ body: () async throws -> Void) async -> JobFailure? {
        do {
            try await body()
            return nil
        } catch {
            return error as? JobFailure
        }
    }

    /// What `pdftotext -raw` reads on `page`: the order Tesseract wrote, words whole.
    func rawText(_ pdf: String, page: Int) async throws -> String {
        try await run("pdftotext", ["-raw", "-f", String(page), "-l", String(page), pdf, "-"]).stdout
    }

    /// Every image of `pdf` as `pdfimages -j` writes it (JPEGs as their stream), by name.
    func images(_ pdf: String, into name: String) async throws -> [String: Data] {
        let folder = directory.path + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try await run("pdfimages", ["-j", pdf, folder + "/img"])
        var images: [String: Data] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) {
            images[file] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file))
        }
        return images
    }

    @Test func aScanGetsATextLayerAndKeepsItsImages() async throws {
        let scan = try await ScanFixtures.file("scan.pdf")
        let (result, text) = try await ocr(scan, .init(languages: ["eng", "deu"]))
        #expect(result != scan)
        var found = WordErrorRate(errors: 0, words: 0)
        var kept = WordErrorRate(errors: 0, words: 0)
        for page in 1...2 {
            let truth = try await ScanFixtures.text(page)
            found = found + WordErrorRate(reference: truth, hypothesis: try await rawText(result, page: page))
            kept = kept + WordErrorRate(reference: truth, hypothesis: text?.pages.first { $0.page == page }?.text ?? "")
        }
        #expect(found.words > 300)
        #expect(found.rate < 0.02, "pdftotext -raw: \(found.errors) of \(found.words) words wrong")
        #expect(kept.rate < 0.02, "Tesseract's text: \(kept.errors) of \(kept.words) words wrong")
        #expect(text?.pages.map(\.page) == [1, 2])
        #expect(text?.languages == ["eng", "deu"])
        // The page images are the JPEGs img2pdf embedded, byte for byte.
        let before = try await images(scan, into: "before")
        let after = try await images(result, into: "after")
        #expect(before.count == 2 && before.keys.allSatisfy { $0.hasSuffix(".jpg") })
        #expect(after == before)
        #expect(try await PDFProbe.pageCount(result) == 2)
    }

    @Test func aPageWithTextIsSkippedUnlessForced() async throws {
        let scan = try await ScanFixtures.file("scan.pdf")
        let mixed = directory.file("mixed.pdf")
        try await run("qpdf", ["--empty", "--pages", Fixtures.pdf("one-page.pdf"), "1", scan, "1", "--", mixed])
        let (skipping, skipped) = try await ocr(mixed, .init(languages: ["eng"]), work: "skip")
        #expect(skipped?.pages.map(\.page) == [2])
        // The text page is as it was: its own text, once.
        let before = try await rawText(mixed, page: 1)
        #expect(try await rawText(skipping, page: 1) == before)
        let (_, forced) = try await ocr(mixed, .init(languages: ["eng"], force: true), work: "force")
        #expect(forced?.pages.map(\.page) == [1, 2])
        #expect(forced?.pages.first?.text.contains("Gateway") == true, "\(forced?.pages.first?.text ?? "")")

        // Nothing to read: the document is the result as it is, with no text kept beside it.
        let text = Fixtures.pdf("one-page.pdf")
        let (same, none) = try await ocr(text, .init(), work: "none")
        #expect(try Data(contentsOf: URL(fileURLWithPath: same)) == Data(contentsOf: URL(fileURLWithPath: text)))
        #expect(none == nil)
    }

    /// A page turned by `/Rotate` and a page cropped by its `CropBox` get their words where the
    /// page shows them: at the same place as on the plain upright page (less the crop's offset).
    @Test func rotatedAndCroppedPagesLineUp() async throws {
        let scan = try await ScanFixtures.file("scan.pdf")
        let upright = directory.file("upright.pdf")
        try await run("qpdf", [scan, "--pages", ".", "1", "--", upright])
        let (plain, plainText) = try await ocr(upright, .init(), work: "plain")
        let (turned, turnedText) = try await ocr(try await ScanFixtures.file("sideways.pdf"), .init(), work: "turned")
        let (cropped, croppedText) = try await ocr(try await ScanFixtures.file("cropped.pdf"), .init(), work: "cropped")

        let truth = try await ScanFixtures.text(1)
        let turnedRate = WordErrorRate(reference: truth, hypothesis: try await rawText(turned, page: 1))
        #expect(turnedRate.rate < 0.02, "sideways page: \(turnedRate.errors) of \(turnedRate.words) words wrong")
        #expect(WordErrorRate(reference: plainText?.pages.first?.text ?? "", hypothesis: turnedText?.pages.first?.text ?? "").rate < 0.02)

        // Only what the crop box shows was read: the first line, not the last.
        let lines = truth.split(separator: "\n")
        let seen = WordErrorRate.words(croppedText?.pages.first?.text ?? "")
        #expect(seen.contains(String(lines[0].split(separator: " ")[0]).lowercased()), "\(seen.prefix(20))")
        #expect(!seen.contains(String(lines[lines.count - 1].split(separator: " ").last ?? "")), "\(seen.suffix(20))")

        // pdftotext places words from the top-left of the crop box or of the media box (its
        // page width says which): the cropped page's words are 18 pt further left in the former.
        let boxes = try await run("pdftotext", ["-bbox", cropped, "-"]).stdout
        let width = boxes.firstMatch(of: /<page width="([0-9.]+)"/).flatMap { Double($0.output.1) } ?? 0
        let shift = abs(width - (595.2 - 18)) < 2 ? 18.0 : 0
        // The first word of the first line found on all three pages.
        let first = truth.split(separator: "\n")[0].split(separator: " ").map(String.init)
        var compared = false
        for word in first {
            guard let a = try await WordBox.of(word, in: plain), let b = try await WordBox.of(word, in: turned),
                let c = try await WordBox.of(word, in: cropped)
            else { continue }
            #expect(abs(a.xMin - b.xMin) < 3 && abs(a.yMin - b.yMin) < 3, "'\(word)' upright at \(a), turned at \(b)")
            // The crop box starts 18 pt in from the left and keeps the top half.
            #expect(abs(a.xMin - shift - c.xMin) < 3 && abs(a.yMin - c.yMin) < 3, "'\(word)' upright at \(a), cropped at \(c) (shift \(shift))")
            compared = true
            break
        }
        #expect(compared, "no word of the first line was found on all three pages")
    }

    @Test func aLanguageThatIsNotInstalledIsNamedWithItsPackage() async throws {
        let failure = await failure { _ = try await ocr(try await ScanFixtures.file("scan.pdf"), .init(languages: ["eng", "xyz"])) }
        #expect(failure?.code == "ocr_language_unavailable")
        #expect(failure?.kind == .rejected)
        let message = failure?.message ?? ""
        #expect(message.contains("'xyz'") && message.contains("tesseract-ocr-xyz") && message.contains("eng"), "\(message)")
        #expect(await tools.ocrLanguages()?.isSuperset(of: ["eng", "deu"]) == true)
    }

    @Test func aPDFWithoutPagesAndOneWithTooManyAreRefused() async throws {
        let empty = directory.file("empty.pdf")
        try await run("qpdf", ["--empty", empty])
        #expect(await failure { _ = try await ocr(empty, .init(), work: "empty") }?.code == "pdf_has_no_pages")

        // 501 text pages, all of them to read with force: refused before Tesseract starts.
        let many = directory.file("many.pdf")
        let page = Fixtures.pdf("one-page.pdf")
        try await run("qpdf", ["--empty", "--pages"] + Array(repeating: [page, "1"], count: 501).flatMap { $0 } + ["--", many])
        let started = ContinuousClock.now
        let failure = await failure { _ = try await ocr(many, .init(force: true), work: "many") }
        #expect(failure?.code == "too_many_pages", "\(String(describing: failure))")
        #expect(failure?.message.contains("501") == true)
        #expect(ContinuousClock.now - started < .seconds(60))
    }
}
