import Foundation

/// How a `SCAN_TO_PDF` job makes its pages: on the wire they sit flat in `options`, beside the
/// paper size (`paper_width`/`paper_height`, which fit every image into that paper instead of
/// sizing each page to its image's DPI). Every field is optional; nil means no.
public struct ScanOptions: Sendable, Equatable, Codable {
    /// Straighten pages photographed or fed at a slant (ImageMagick's deskew). It re-encodes
    /// the page it turns: that page's JPEG is no longer the one sent.
    public var deskew: Bool?
    /// Turn pages that lie sideways or upside down upright, as Tesseract reads their text; the
    /// page is turned (`/Rotate`), its image kept as it is.
    public var autoRotate: Bool?
    /// Add an invisible text layer (Tesseract) so the PDF can be searched and its text copied:
    /// the job's first operation becomes `{"op": "ocr"}` (`JobSpec.withScanOCR`).
    public var ocr: Bool?
    /// The languages the text is in, as Tesseract names them ("eng", "deu"); the `ocr`
    /// operation's default when left out.
    public var ocrLanguages: [String]?

    public init(deskew: Bool? = nil, autoRotate: Bool? = nil, ocr: Bool? = nil, ocrLanguages: [String]? = nil) {
        self.deskew = deskew
        self.autoRotate = autoRotate
        self.ocr = ocr
        self.ocrLanguages = ocrLanguages
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case deskew
        case autoRotate = "auto_rotate"
        case ocr
        case ocrLanguages = "ocr_languages"
    }

    /// The wire names of the options that are set, in documentation order.
    public var setKeys: [String] {
        let values: [(CodingKeys, Any?)] = [(.deskew, deskew), (.autoRotate, autoRotate), (.ocr, ocr), (.ocrLanguages, ocrLanguages)]
        return values.filter { $0.1 != nil }.map(\.0.rawValue)
    }

    func validate() throws(OptionsError) {
        guard let languages = ocrLanguages else { return }
        guard ocr == true else {
            throw OptionsError(
                .conflicting,
                code: "conflicting_options",
                field: "ocr_languages",
                "options.ocr_languages says which languages to recognise, but options.ocr is not true; set \"ocr\": true too"
            )
        }
        if let problem = PDFOperation.OCR.languagesProblem(languages, field: "options.ocr_languages") {
            throw OptionsError(.invalid, code: problem.code, field: "ocr_languages", problem.message)
        }
    }
}

extension JobSpec {
    /// The spec with a scan's `ocr` option as the operation it stands for: `{"op": "ocr"}` with
    /// its languages, ahead of the job's other operations (the text layer goes under the pages
    /// before anything else changes them). One code path for OCR, whether asked as an option or
    /// as an operation.
    public func withScanOCR() -> JobSpec {
        guard options.scan.ocr == true, !(operations ?? []).contains(where: { $0.name == "ocr" }) else { return self }
        var spec = self
        spec.operations = [.ocr(PDFOperation.OCR(languages: options.scan.ocrLanguages ?? PDFOperation.OCR.defaultLanguages))] + (operations ?? [])
        return spec
    }
}
