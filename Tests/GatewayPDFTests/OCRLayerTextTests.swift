import Foundation
import GatewayPDF
import GatewaySearchText
import GatewayTestSupport
import Testing

/// What Poppler's page text (`poppler_page_get_text`, the worker's) makes of an invisible OCR
/// text layer from Tesseract's own PDF renderer: the letters are all there, but on a scan that
/// is slightly skewed Poppler's reading order breaks and joins words of the glyphless layer, as
/// `pdftotext` does without `-raw`: "agree|ment" on this page; on the 20-page research set
/// also "referen|ce", "summa|ry" and "expensequarter". So the index takes Tesseract's text for
/// the pages we OCR, and Poppler's only for PDFs that bring their own text.
@Suite(.timeLimit(.minutes(2)), .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tesseract")))
struct OCRLayerTextTests {
    @Test func popplerKeepsTheLettersOfAnOCRLayerButNotAlwaysItsWords() async throws {
        let directory = TemporaryDirectory("ocr-layer")
        let lines = [
            "Schedule section balance agreement agreement balance period 9235,",
            "Schedule gross bank date item signature reference reference section 9310.",
            "Section term revenue reference net schedule section summary customer transfer 237.",
        ]
        let image = directory.file("page.png")
        try #require(
            try await run(
                "/usr/bin/convert",
                [
                    "-size", "2480x900", "xc:white", "-font", "DejaVu-Sans", "-pointsize", "36", "-interline-spacing", "40",
                    "-annotate", "+150+200", lines.joined(separator: "\n"),
                    // Skewed and noisy like a photo of a page: a straight, clean page reads back whole.
                    "-background", "white", "-rotate", "1.3", "-gravity", "center", "-extent", "2480x900", "-seed", "1", "-attenuate", "0.3",
                    "+noise", "Gaussian", "-colorspace", "Gray", "-density", "300", "-units", "PixelsPerInch", image,
                ]
            ).status == 0
        )
        let base = directory.file("layer")
        try #require(
            try await run(
                "/usr/bin/tesseract",
                [image, base, "-l", "eng", "-c", "textonly_pdf=1", "pdf", "txt"],
                environment: ["OMP_THREAD_LIMIT": "1"]
            ).status == 0
        )
        let output = directory.file("poppler.txt")
        let inspection = try await makePool(poolSize: 1).using { pool in
            try await pool.inspect(path: base + ".pdf", thumbnail: nil, textOutputPath: output)
        }
        let poppler = try #require(try inspection.text?.read(path: output)).pages.joined(separator: " ")
        let tesseract = try String(contentsOfFile: base + ".txt", encoding: .utf8)

        let popplerWords = SearchTokenizer.tokens(in: poppler)
        let tesseractWords = SearchTokenizer.tokens(in: tesseract)
        // Order aside (Poppler may read the lines of a layer in another order), the same letters.
        #expect(popplerWords.joined().sorted() == tesseractWords.joined().sorted(), "\(popplerWords) vs \(tesseractWords)")
        // Recorded, not required (a later Poppler may read the layer better): the words it broke.
        let split = Set(popplerWords).subtracting(tesseractWords).sorted()
        print("OCR layer: Poppler \(popplerWords.count) words, Tesseract \(tesseractWords.count); words only Poppler has: \(split)")
    }
}
