import Foundation
import GatewayTestSupport
import Testing

/// SCAN_TO_PDF through a real `pdfgate serve`: page images made by ImageMagick, laid
/// out by the real img2pdf, read back with Poppler's `pdfinfo` and `pdfimages`.
@Suite("Scans: page images to one PDF", .serialized)
struct ScanJobTests {
    /// A page image: `size` pixels of white with a dark block whose width tells pages apart,
    /// written by ImageMagick in the format `name`'s extension says, at `dpi` (nil: none said).
    static func page(
        _ directory: TemporaryDirectory,
        _ name: String,
        size: String = "600x800",
        mark: Int = 100,
        dpi: Int? = 150
    ) async throws
        -> String
    {
        let path = directory.file(name)
        var arguments = ["-size", size, "xc:white", "-fill", "gray20", "-draw", "rectangle 50,50 \(50 + mark),150"]
        if let dpi { arguments += ["-units", "PixelsPerInch", "-density", "\(dpi)"] }
        let made = try await run(try which("convert"), arguments + [path])
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    /// A page of printed text as a photo would show it, `rotation` degrees turned.
    static func textPage(_ directory: TemporaryDirectory, _ name: String, rotation: Int = 0) async throws -> String {
        let path = directory.file(name)
        let text = (1...14).map { "Line \($0): the quick brown fox jumps over the lazy dog, invoice 2026." }.joined(separator: "\n")
        let made = try await run(
            try which("convert"),
            [
                "-size", "1240x1754", "xc:white", "-font", "DejaVu-Sans", "-pointsize", "24", "-fill", "black", "-annotate", "+80+120", text,
                "-rotate", "\(rotation)", "-units", "PixelsPerInch", "-density", "150", "-quality", "85", path,
            ]
        )
        #expect(made.status == 0, "\(made.stderr)")
        return path
    }

    static func scan(_ client: APIClient, _ parts: [FormPart]) async throws -> APIClient.Answer {
        try await PDFOperationsTests.finished(client, try await MergedInputsTests.postForm(client, parts))
    }

    /// `pdfinfo -f 1 -l N`: each page's size in points and its rotation.
    static func pages(_ path: String) async throws -> [(width: Double, height: Double, rotation: Int)] {
        let info = try await PDFOperationsTests.pdfinfo(path, ["-f", "1", "-l", "999"])
        var pages: [(Double, Double, Int)] = []
        for line in info.split(separator: "\n") where line.hasPrefix("Page ") && line.contains(" size: ") {
            let numbers = line.split(separator: ":", maxSplits: 1)[1].split(separator: " ").compactMap { Double($0) }
            pages.append((numbers[0], numbers[1], 0))
        }
        for (index, line) in info.split(separator: "\n").filter({ $0.hasPrefix("Page ") && $0.contains(" rot: ") }).enumerated() {
            pages[index].2 = Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)) ?? -1
        }
        return pages
    }

    /// The images `pdfimages -j` takes out of the PDF, in page order: JPEGs as their own bytes.
    static func embeddedImages(_ pdf: String, in directory: TemporaryDirectory) async throws -> [String] {
        let prefix = directory.file("embedded")
        let taken = try await run(try which("pdfimages"), ["-j", pdf, prefix])
        #expect(taken.status == 0, "\(taken.stderr)")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("embedded") }.sorted()
            .map { directory.file($0) }
    }

    @Test("JPEGs and a PNG, sent together: one SCAN_TO_PDF document, a page each in order, each JPEG byte for byte")
    func pagesInOrderJPEGsUntouched() async throws {
        let directory = TemporaryDirectory()
        let first = try await Self.page(directory, "p1.jpg", mark: 100)
        let second = try await Self.page(directory, "p2.png", size: "900x600", mark: 300)
        let third = try await Self.page(directory, "p3.jpg", size: "300x450", mark: 200, dpi: 300)
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            let job = try await Self.scan(client, [.file("file", path: first), .file("file", path: second), .file("file", path: third)])
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            #expect(job.string("type") == "SCAN_TO_PDF", "several images and nothing else are a scan")
            let document = job.json["document"] as? [String: Any]
            #expect(document?["name"] as? String == "p1")
            let pdf = try PDFOperationsTests.file(server, document)

            // Each page sized by its own image's DPI: 600×800 px at 150 dpi is 288×384 pt.
            let pages = try await Self.pages(pdf)
            #expect(pages.map(\.width) == [288, 432, 72], "\(pages)")
            #expect(pages.map(\.height) == [384, 288, 108], "\(pages)")

            let taken = TemporaryDirectory()
            let extracted = try await Self.embeddedImages(pdf, in: taken)
            #expect(extracted.count == 3, "\(extracted)")
            #expect(extracted.first.map { FileManager.default.contentsEqual(atPath: $0, andPath: first) } == true, "page 1's JPEG is the one sent")
            #expect(extracted.last.map { FileManager.default.contentsEqual(atPath: $0, andPath: third) } == true, "page 3's JPEG is the one sent")
        }
    }

    /// The skew ImageMagick measures in an image, in degrees.
    static func skew(_ path: String) async throws -> Double {
        let measured = try await run(try which("convert"), [path, "-deskew", "40%", "-format", "%[deskew:angle]", "info:"])
        return try #require(Double(measured.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(measured.stdout) \(measured.stderr)")
    }

    @Test("deskew straightens a page photographed 3° askew; a HEIC photo is decoded and laid out")
    func deskewAndHEIC() async throws {
        let directory = TemporaryDirectory()
        let askew = try await Self.textPage(directory, "askew.jpg", rotation: 3)
        #expect(abs(try await Self.skew(askew)) > 2, "the fixture is askew")
        let heic = directory.file("receipt.heic")
        let made = try await run(try which("convert"), [try await Self.page(directory, "receipt.png"), heic])
        #expect(made.status == 0, "\(made.stderr)")
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            let straight = try await Self.scan(client, [.file("file", path: askew), .text("deskew", "true")])
            #expect(straight.string("status") == "SUCCEEDED", "\(straight.text)")
            let taken = TemporaryDirectory()
            let prefix = taken.file("image")
            let pdf = try PDFOperationsTests.file(server, straight.json["document"] as? [String: Any])
            #expect(try await run(try which("pdfimages"), ["-png", pdf, prefix]).status == 0)
            let image = try #require(try FileManager.default.contentsOfDirectory(atPath: taken.path).first.map(taken.file))
            #expect(abs(try await Self.skew(image)) < 0.5, "straightened")

            let decoded = try await PDFOperationsTests.finished(
                client,
                try await PDFOperationsTests.oneShot(client, "/v1/jobs?filename=receipt.heic", heic)
            )
            #expect(decoded.string("status") == "SUCCEEDED", "\(decoded.text)")
            let pages = try await Self.pages(try PDFOperationsTests.file(server, decoded.json["document"] as? [String: Any]))
            #expect(pages.count == 1 && abs(pages[0].width - 595.28) < 1, "a HEIC says no DPI here: A4, \(pages)")
        }
    }

    @Test("a two-frame TIFF of 16 bits a sample makes two pages in order; an image without DPI is fitted into A4")
    func tiffFramesAndFallbackPaper() async throws {
        let directory = TemporaryDirectory()
        let tiff = directory.file("two.tif")
        let made = try await run(
            try which("convert"),
            ["-units", "PixelsPerInch", "-density", "100", "-size", "200x100", "xc:white", "-size", "100x300", "xc:gray", tiff]
        )
        #expect(made.status == 0, "\(made.stderr)")
        let phone = try await Self.page(directory, "phone.jpg", size: "1200x1600", dpi: 72)
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            let two = try await PDFOperationsTests.finished(client, try await PDFOperationsTests.oneShot(client, "/v1/jobs?filename=two.tif", tiff))
            #expect(two.string("status") == "SUCCEEDED", "\(two.text)")
            #expect(two.string("type") == "SCAN_TO_PDF", "an image's extension makes the one-shot a scan")
            let pages = try await Self.pages(try PDFOperationsTests.file(server, two.json["document"] as? [String: Any]))
            #expect(pages.map(\.width) == [144, 72] && pages.map(\.height) == [72, 216], "frame order and sizes: \(pages)")

            let fitted = try await PDFOperationsTests.finished(
                client,
                try await PDFOperationsTests.oneShot(client, "/v1/jobs?filename=phone.jpg", phone)
            )
            #expect(fitted.string("status") == "SUCCEEDED", "\(fitted.text)")
            let a4 = try await Self.pages(try PDFOperationsTests.file(server, fitted.json["document"] as? [String: Any]))
            #expect(a4.count == 1 && abs(a4[0].width - 595.28) < 1 && abs(a4[0].height - 841.89) < 1, "72 dpi says nothing: A4, \(a4)")
        }
    }

    @Test("EXIF orientation turns the page and keeps the JPEG; a mirrored photo is turned over; auto_rotate turns an upside-down page upright")
    func orientation() async throws {
        let directory = TemporaryDirectory()
        let sideways = try await Self.page(directory, "sideways.jpg")
        #expect(try await run(try which("exiftool"), ["-overwrite_original", "-n", "-Orientation=6", sideways]).status == 0)
        let mirrored = try await Self.page(directory, "mirrored.jpg")
        #expect(try await run(try which("exiftool"), ["-overwrite_original", "-n", "-Orientation=2", mirrored]).status == 0)
        let upsideDown = try await Self.textPage(directory, "upside-down.jpg", rotation: 180)
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            let turned = try await Self.scan(client, [.file("file", path: sideways), .file("file", path: mirrored)])
            #expect(turned.string("status") == "SUCCEEDED", "\(turned.text)")
            let pdf = try PDFOperationsTests.file(server, turned.json["document"] as? [String: Any])
            let pages = try await Self.pages(pdf)
            #expect(pages.map(\.rotation) == [90, 0], "\(pages)")
            let taken = TemporaryDirectory()
            let extracted = try await Self.embeddedImages(pdf, in: taken)
            #expect(
                extracted.first.map { FileManager.default.contentsEqual(atPath: $0, andPath: sideways) } == true,
                "the turned page keeps its JPEG"
            )
            #expect(extracted.last?.hasSuffix(".jpg") == false, "a mirrored photo's pixels are re-drawn (lossless): \(extracted)")

            let upright = try await Self.scan(client, [.file("file", path: upsideDown), .text("auto_rotate", "true")])
            #expect(upright.string("status") == "SUCCEEDED", "\(upright.text)")
            let uprightPDF = try PDFOperationsTests.file(server, upright.json["document"] as? [String: Any])
            #expect(try await Self.pages(uprightPDF).map(\.rotation) == [180])
            // Turning is all auto_rotate does: no text layer comes without OCR.
            #expect(try await PDFProbe.text(uprightPDF).trimmingCharacters(in: .whitespaces).isEmpty)
        }
    }

    @Test("ocr on a scan: the text layer is found by pdftotext, the JPEG kept; a bad or missing language is refused at create")
    func scanWithOCR() async throws {
        let directory = TemporaryDirectory()
        let page = try await Self.textPage(directory, "letter.jpg")
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            let job = try await Self.scan(client, [.file("file", path: page), .text("ocr", "true"), .text("ocr_languages", "[\"eng\"]")])
            #expect(job.string("status") == "SUCCEEDED", "\(job.text)")
            let operations = job.json["operations"] as? [[String: Any]]
            #expect(operations?.first?["op"] as? String == "ocr", "the option stands for the operation: \(job.text)")
            let pdf = try PDFOperationsTests.file(server, job.json["document"] as? [String: Any])
            let text = try await run(try which("pdftotext"), ["-raw", pdf, "-"]).stdout.lowercased()
            #expect(text.contains("the quick brown fox jumps over the lazy dog"), "\(text.prefix(300))")
            let taken = TemporaryDirectory()
            let extracted = try await Self.embeddedImages(pdf, in: taken)
            #expect(extracted.count == 1 && FileManager.default.contentsEqual(atPath: extracted[0], andPath: page), "the page's JPEG is kept")

            for (languages, status, code) in [("[\"english\"]", 400, "invalid_ocr_language"), ("[\"fra\"]", 422, "ocr_language_unavailable")] {
                let refused = try await MergedInputsTests.postForm(
                    client,
                    [.file("file", path: page), .text("ocr", "true"), .text("ocr_languages", languages)]
                )
                #expect(refused.status == status && refused.string("error") == code, "\(languages): \(refused.status) \(refused.text)")
            }
            let notAScan = try await PDFOperationsTests.oneShot(client, "/v1/jobs?filename=one-page.pdf&ocr=true", Fixtures.pdf("one-page.pdf"))
            #expect(notAScan.status == 422 && notAScan.string("error") == "conflicting_options", "\(notAScan.text)")
            #expect(notAScan.string("error_message")?.contains("{\"op\": \"ocr\"}") == true, "\(notAScan.text)")
        }
    }

    @Test("a file that is no image, an image bomb, a non-image beside images: clear codes, nothing filed")
    func badInput() async throws {
        let directory = TemporaryDirectory()
        let fake = directory.file("notes.jpg")
        try Data("these are notes, not a photo\n".utf8).write(to: URL(fileURLWithPath: fake))
        let bomb = directory.file("bomb.png")
        var ihdr: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        ihdr += [0, 0, 0x9C, 0x40, 0, 0, 0x9C, 0x40, 8, 2, 0, 0, 0, 0, 0, 0, 0]  // 40,000 × 40,000
        try Data(ihdr).write(to: URL(fileURLWithPath: bomb))
        let good = try await Self.page(directory, "good.jpg")
        try await using(await ServerProcess()) { server in
            let client = APIClient(base: server.baseURL)
            for (parts, code, phrase) in [
                ([FormPart.file("file", path: good), .file("file", path: fake)], "not_an_image", "inputs[1] ('notes.jpg')"),
                ([FormPart.file("file", path: bomb)], "image_too_large", "40000 × 40000"),
            ] {
                let job = try await Self.scan(client, parts)
                #expect(job.string("status") == "FAILED", "\(job.text)")
                #expect(job.string("error") == code, "\(job.text)")
                #expect(job.string("error_message")?.contains(phrase) == true, "\(job.text)")
            }
            let mixed = try await MergedInputsTests.postForm(
                client,
                [.text("type", "SCAN_TO_PDF"), .file("file", path: good), .file("file", path: Fixtures.office("sample.docx"))]
            )
            #expect(mixed.status == 415, "\(mixed.text)")
            #expect(mixed.string("error") == "unsupported_format", "\(mixed.text)")
            #expect(try await MergedInputsTests.documentCount(client) == 0, "a failed scan files nothing")
        }
    }
}
