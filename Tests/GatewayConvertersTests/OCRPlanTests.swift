import Foundation
import GatewayJobModel
import GatewayTestSupport
import Testing

@testable import GatewayPDFTools

/// How `ocr` reads Poppler's answers and shares out its pages, without running a tool.
@Suite("OCR: page facts and lanes")
struct OCRPlanTests {
    static let pdfinfo = """
        Pages:           3
        Page    1 size:  595.2 x 841.68 pts (A4)
        Page    1 rot:   0
        Page    1 MediaBox:      0.00     0.00   595.20   841.68
        Page    1 CropBox:       0.00     0.00   595.20   841.68
        Page    1 BleedBox:      0.00     0.00   595.20   841.68
        Page    1 TrimBox:       0.00     0.00   595.20   841.68
        Page    1 ArtBox:        0.00     0.00   595.20   841.68
        Page    2 size:  841.68 x 595.2 pts (A4)
        Page    2 rot:   90
        Page    2 MediaBox:      0.00     0.00   841.68   595.20
        Page    2 CropBox:       0.00     0.00   841.68   595.20
        Page    2 TrimBox:       0.00     0.00   841.68   595.20
        Page    3 size:  595.2 x 841.68 pts (A4)
        Page    3 rot:   0
        Page    3 MediaBox:      0.00     0.00   595.20   841.68
        Page    3 CropBox:      36.00   420.84   595.20   841.68
        Page    3 TrimBox:      36.00   420.84   595.20   841.68
        """

    static let pdfimages = """
        page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio
        --------------------------------------------------------------------------------------------
           1     0 image    2480  3507  gray    1   8  jpeg   no         7  0   300   300  968K  11%
           2     1 image    3507  2480  gray    1   8  jpeg   no        12  0   300   300  955K  11%
           3     2 image    2480  3507  gray    1   8  jpeg   no         7  0   300   300  968K  11%
           4     3 image     100   100  rgb     3   8  image  no        20  0    72    72   10K  33%
           4     4 smask     100   100  gray    1   8  image  no        21  0    72    72    1K  10%
        """

    static func pages() -> [PageFacts] {
        var pages = PageFacts.pages(fromPDFInfo: pdfinfo)
        let images = PageFacts.images(fromList: pdfimages)
        for index in pages.indices { pages[index].images = images[pages[index].number] ?? [] }
        return pages
    }

    @Test func poppler_sAnswersAreRead() {
        let pages = Self.pages()
        #expect(pages.map(\.number) == [1, 2, 3])
        #expect(pages.map(\.rotation) == [0, 90, 0])
        #expect(pages[2].cropBox == [36, 420.84, 595.2, 841.68])
        // Without a TrimBox line, the crop box is the trim box.
        let bare = PageFacts.pages(fromPDFInfo: "Page    1 size:  100 x 200 pts\nPage    1 rot:   -90\n")
        #expect(bare.first?.mediaBox == [0, 0, 100, 200] && bare.first?.trimBox == [0, 0, 100, 200] && bare.first?.rotation == 270)
        let images = PageFacts.images(fromList: Self.pdfimages)
        #expect(images[4]?.map(\.type) == ["image", "smask"])
        #expect(
            images[1]?.first
                == .init(type: "image", width: 2480, height: 3507, color: "gray", bitsPerComponent: 8, encoding: "jpeg", xPPI: 300, yPPI: 300)
        )
        #expect(PageFacts.pagesWithText(fromText: "Invoice 12\u{0C} \n\u{0C}\u{0C}—\u{0C}x\u{0C}") == [1, 5])
    }

    @Test func onlyAnUprightUncroppedFullPageImageIsUsedAsItIs() {
        let pages = Self.pages()
        #expect(pages[0].source == .image(dpi: 300, jpeg: true))
        // Turned: drawn, so Tesseract sees the page as viewers show it.
        #expect(pages[1].source == .raster(dpi: 300))
        // Cropped: drawn.
        #expect(pages[2].source == .raster(dpi: 300))
        var small = pages[0]
        small.images[0].xPPI = 600
        small.images[0].yPPI = 600
        #expect(small.source == .raster(dpi: 300), "an image covering a quarter of the page is not the page")
        var masked = pages[0]
        masked.images.append(masked.images[0])
        #expect(masked.source == .raster(dpi: 300))
        // An A0 poster is drawn coarser than 300 dpi.
        var poster = pages[1]
        poster.cropBox = [0, 0, 2384, 3370]
        #expect(poster.source.dpi <= 150)
    }

    @Test func pagesAreSharedOutInOrderAcrossTheCores() {
        var page = Self.pages()[0]
        let twenty = (1...20).map { number in
            page.number = number
            return page
        }
        let plan = OCRLanePlan(pages: twenty, cores: 2, maxBatch: 6)
        #expect(plan.batches.map(\.pages.count) == [6, 6, 6, 2])
        #expect(plan.batches.flatMap(\.pages).map(\.number) == Array(1...20))
        #expect(plan.lanes == 2)
        #expect(OCRLanePlan(pages: Array(twenty.prefix(3)), cores: 2, maxBatch: 20).batches.map(\.pages.count) == [2, 1])
        #expect(OCRLanePlan(pages: Array(twenty.prefix(1)), cores: 4, maxBatch: 20).lanes == 1)
        // A batch is one resolution.
        var mixed = Array(twenty.prefix(4))
        mixed[1].rotation = 90
        mixed[1].cropBox = [0, 0, 2384, 3370]
        #expect(OCRLanePlan(pages: mixed, cores: 1, maxBatch: 20).batches.map { $0.pages.map(\.number) } == [[1], [2], [3, 4]])
        #expect(OCRLanePlan.maxBatch(cpuSeconds: 120, pageBudget: .seconds(20)) == 6)
        #expect(OCRLanePlan.maxBatch(cpuSeconds: 120, pageBudget: .seconds(1)) == 20)
        #expect(OCRLanePlan.maxBatch(cpuSeconds: 10, pageBudget: .seconds(30)) == 1)
    }

    @Test func theTextGoesUnderTheTrimBoxAsTheViewerSeesIt() {
        #expect(TextLayerUnderlay.ranges([1, 2, 3, 5, 7, 8]) == "1-3,5,7-8")
        #expect(TextLayerUnderlay.ranges([4]) == "4")
        var page = Self.pages()[0]
        #expect(PageImages.trimCrop(page, dpi: 72) == nil)
        // A trim box 10 pt in from the left and 20 pt down from the top of a 100 × 200 page.
        page.mediaBox = [0, 0, 100, 200]
        page.cropBox = [0, 0, 100, 200]
        page.trimBox = [10, 0, 100, 180]
        let expected: [Int: (Int, Int, Int, Int)] = [0: (10, 20, 90, 180), 90: (0, 10, 180, 90), 180: (0, 0, 90, 180), 270: (20, 0, 180, 90)]
        for (rotation, crop) in expected {
            page.rotation = rotation
            let found = PageImages.trimCrop(page, dpi: 72)
            #expect(found.map { [$0.x, $0.y, $0.width, $0.height] } == [crop.0, crop.1, crop.2, crop.3], "rotation \(rotation)")
        }
    }

    @Test func tesseractLanguagesAreReadFromItsList() {
        let list = "List of available languages in \"/usr/share/tesseract-ocr/5/tessdata/\" (4):\ndeu\neng\nosd\nchi_sim\nbad/name\n"
        #expect(TesseractLanguages.parse(list) == ["deu", "eng", "osd", "chi_sim"])
        #expect(PDFOperation.OCR.unavailable(["eng"], installed: ["eng", "osd"]) == nil)
        let message = PDFOperation.OCR.unavailable(["chi_sim", "eng"], installed: ["eng", "osd"]) ?? ""
        #expect(message.contains("'chi_sim'") && message.contains("tesseract-ocr-chi-sim") && message.contains("installed: eng)"), "\(message)")
    }

    @Test func wordErrorRateCountsWordEdits() {
        #expect(WordErrorRate(reference: "The invoice, number 12.", hypothesis: "the INVOICE number 12").rate == 0)
        let rate = WordErrorRate(reference: "a b c d", hypothesis: "a x c")
        #expect(rate.errors == 2 && rate.words == 4)
        #expect((rate + WordErrorRate(reference: "e f", hypothesis: "e f")).rate == 2.0 / 6)
        #expect(WordErrorRate(reference: "Müller Straße", hypothesis: "müller straße").errors == 0)
    }
}
