import Foundation

/// What `ocr` must know of one page before it reads it: whether it has text already, the box a
/// viewer shows and how it is turned, and what images it draws (Poppler's own reading of it).
struct PageFacts: Sendable, Equatable {
    /// 1 is the first page.
    var number: Int
    /// In points, as `[x0, y0, x1, y1]`.
    var mediaBox: [Double]
    var cropBox: [Double]
    /// What qpdf fits an underlay into (`TrimBox`, else the crop box).
    var trimBox: [Double]
    /// `/Rotate`, clockwise, 0, 90, 180 or 270.
    var rotation: Int
    /// `pdftotext` found a letter or digit on it.
    var hasText = false
    /// The images it draws, from `pdfimages -list`.
    var images: [ImageEntry] = []

    /// One row of `pdfimages -list`.
    struct ImageEntry: Sendable, Equatable {
        /// `image`, `mask`, `smask` or `stencil`.
        var type: String
        var width: Int
        var height: Int
        /// `gray`, `rgb`, `cmyk`, `index`, …
        var color: String
        var bitsPerComponent: Int
        /// `jpeg`, `image` (Flate and the like), `ccitt`, `jbig2`, `jpx`.
        var encoding: String
        /// Pixels per inch as drawn on the page.
        var xPPI: Double
        var yPPI: Double
    }

    /// How `ocr` gets a picture of the page for Tesseract.
    enum Source: Sendable, Equatable {
        /// The page is one image, upright and filling it: that image, as stored (`pdfimages`),
        /// with this resolution. `jpeg` when its stream is a JPEG file as it is.
        case image(dpi: Int, jpeg: Bool)
        /// Anything else: the visible page drawn by Poppler at this resolution, as viewers show it.
        case raster(dpi: Int)

        var dpi: Int {
            switch self {
            case .image(let dpi, _), .raster(let dpi): dpi
            }
        }
    }

    /// Resolution a page is drawn at for Tesseract: what it reads best (its models are trained on
    /// 300 dpi text), and what OCRmyPDF uses.
    static let rasterDPI = 300
    /// Pixels one drawn page may have: an A0 poster at 300 dpi would be 140 million, so big pages
    /// are drawn coarser, keeping Tesseract's memory (and time) to that of an A3 page.
    static let maxRasterPixels = 35_000_000.0
    /// Sides beyond this are not handed to Tesseract as they are (Leptonica reads them, but an
    /// image bomb must not get that far): the page is drawn instead.
    static let maxImageSide = 20_000

    /// Decides how the page is read. Its one image is used as stored only when the result lines
    /// up with the page exactly: not turned (`/Rotate`, whose viewed orientation Poppler draws),
    /// no crop, square pixels and the image filling the media box. Everything else is drawn.
    var source: Source {
        if rotation == 0, Self.same(cropBox, mediaBox), Self.same(trimBox, mediaBox), images.count == 1, let image = images.first,
            image.type == "image", ["gray", "rgb"].contains(image.color), [1, 8].contains(image.bitsPerComponent),
            image.width <= Self.maxImageSide, image.height <= Self.maxImageSide, image.xPPI > 0, image.yPPI > 0
        {
            let width = mediaBox[2] - mediaBox[0]
            let height = mediaBox[3] - mediaBox[1]
            let drawnWidth = Double(image.width) / image.xPPI * 72
            let drawnHeight = Double(image.height) / image.yPPI * 72
            if abs(drawnWidth - width) <= width * 0.01, abs(drawnHeight - height) <= height * 0.01, abs(image.xPPI - image.yPPI) <= image.xPPI * 0.01
            {
                let dpi = Int((Double(image.width) / (width / 72)).rounded())
                return .image(dpi: max(dpi, 1), jpeg: image.encoding == "jpeg")
            }
        }
        return .raster(dpi: rasterDPI(of: cropBox))
    }

    /// 300 dpi, or less for a page so big that 300 dpi would pass `maxRasterPixels`.
    func rasterDPI(of box: [Double]) -> Int {
        let inches = max((box[2] - box[0]) / 72, 0.01) * max((box[3] - box[1]) / 72, 0.01)
        let fitting = (Self.maxRasterPixels / inches).squareRoot()
        return max(min(Self.rasterDPI, Int(fitting)), 36)
    }

    /// Two boxes equal to within half a point (pdfinfo prints two decimals).
    static func same(_ a: [Double], _ b: [Double]) -> Bool {
        a.count == 4 && b.count == 4 && zip(a, b).allSatisfy { abs($0 - $1) <= 0.5 }
    }
}

extension PageFacts {
    /// The pages `pdfinfo -box -f 1 -l N` describes (`Page    3 MediaBox: …`), in order. A
    /// page without a box line of its own takes its media box for the others, as PDF says.
    static func pages(fromPDFInfo text: String) -> [PageFacts] {
        var pages: [Int: PageFacts] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("Page ") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count >= 3, let number = Int(words[1]) else { continue }
            var page = pages[number] ?? PageFacts(number: number, mediaBox: [], cropBox: [], trimBox: [], rotation: 0)
            let values = words.dropFirst(3).compactMap { Double($0) }
            switch words[2] {
            case "rot:": page.rotation = ((Int(values.first ?? 0) % 360) + 360) % 360
            case "MediaBox:" where values.count == 4: page.mediaBox = values
            case "CropBox:" where values.count == 4: page.cropBox = values
            case "TrimBox:" where values.count == 4: page.trimBox = values
            case "size:" where values.count >= 2 && page.mediaBox.isEmpty: page.mediaBox = [0, 0, values[0], values[1]]
            default: break
            }
            pages[number] = page
        }
        return pages.keys.sorted().map { number in
            var page = pages[number]!
            if page.cropBox.isEmpty { page.cropBox = page.mediaBox }
            if page.trimBox.isEmpty { page.trimBox = page.cropBox }
            return page
        }
    }

    /// The rows of `pdfimages -list`, by page number.
    static func images(fromList text: String) -> [Int: [ImageEntry]] {
        var images: [Int: [ImageEntry]] = [:]
        for line in text.split(separator: "\n") {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            // page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
            guard columns.count >= 14, let page = Int(columns[0]), let width = Int(columns[3]), let height = Int(columns[4]) else { continue }
            images[page, default: []].append(
                ImageEntry(
                    type: String(columns[2]),
                    width: width,
                    height: height,
                    color: String(columns[5]),
                    bitsPerComponent: Int(columns[7]) ?? 0,
                    encoding: String(columns[8]),
                    xPPI: Double(columns[12]) ?? 0,
                    yPPI: Double(columns[13]) ?? 0
                )
            )
        }
        return images
    }

    /// Which pages of `pdftotext`'s output (pages end with a form feed) hold a letter or digit.
    /// Any counts, as for OCRmyPDF's `--skip-text`: a page with some text is not a scan to read
    /// again, and `force` is there for one that is.
    static func pagesWithText(fromText text: String) -> Set<Int> {
        var pages = Set<Int>()
        for (index, page) in text.split(separator: "\u{0C}", omittingEmptySubsequences: false).enumerated()
        where page.unicodeScalars.contains(where: { CharacterSet.alphanumerics.contains($0) }) {
            pages.insert(index + 1)
        }
        return pages
    }
}
