import Foundation

/// How LibreOffice writes an office document's PDF: Gotenberg 8's LibreOffice options under our
/// snake_case names, each one of LibreOffice's PDF export settings. Only LibreOffice honours them
/// (the local backend, and Gotenberg's LibreOffice route); on the wire they sit flat in `options`.
/// Every field is optional and nil means LibreOffice's default. `page_ranges` and `landscape` are
/// shared with the other backends and live in `BrowserOptions` and `ConversionOptions`.
public struct OfficeOptions: Sendable, Equatable, Codable {
    /// Fill-in form controls become PDF form fields (LibreOffice's default: yes).
    public var exportFormFields: Bool?
    /// Headings and the document's outline become PDF bookmarks (LibreOffice's default: yes).
    public var exportBookmarks: Bool?
    /// Comments become PDF annotations.
    public var exportNotes: Bool?
    /// A presentation's speaker notes pages follow its slides.
    public var exportNotesPages: Bool?
    /// Images are kept lossless (PNG-like) instead of JPEG; then `quality` means nothing.
    public var losslessImageCompression: Bool?
    /// JPEG quality of images, 1 to 100 (LibreOffice's default: 90).
    public var quality: Int?
    /// Downsample images above `maxImageResolution`.
    public var reduceImageResolution: Bool?
    /// DPI images are reduced to: one of `allowedImageResolutions` (LibreOffice's default: 300).
    public var maxImageResolution: Int?
    /// A spreadsheet's every sheet on one page of its own size.
    public var singlePageSheets: Bool?
    /// An archival PDF straight from LibreOffice's export.
    public var pdfa: PDFA?
    /// A PDF/UA (accessible, tagged) PDF straight from LibreOffice's export.
    public var pdfua: Bool?
    /// LibreOffice's own export settings by its names (`LibreOfficeExportSetting.all`).
    public var libreOfficeExport: [String: OfficeExportValue]?

    public init() {}

    /// The resolutions LibreOffice's PDF export offers (and Gotenberg accepts).
    public static let allowedImageResolutions = [75, 150, 300, 600, 1200]

    /// The PDF/A parts LibreOffice writes, spelled as Gotenberg spells them.
    public enum PDFA: String, Sendable, Equatable, Codable, CaseIterable {
        case a1b = "PDF/A-1b"
        case a2b = "PDF/A-2b"
        case a3b = "PDF/A-3b"

        /// LibreOffice's `SelectPdfVersion`: 1, 2 or 3.
        public var part: Int { Int(String(rawValue.dropFirst(6).prefix(1)))! }
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case exportFormFields = "export_form_fields"
        case exportBookmarks = "export_bookmarks"
        case exportNotes = "export_notes"
        case exportNotesPages = "export_notes_pages"
        case losslessImageCompression = "lossless_image_compression"
        case quality
        case reduceImageResolution = "reduce_image_resolution"
        case maxImageResolution = "max_image_resolution"
        case singlePageSheets = "single_page_sheets"
        case pdfa, pdfua
        case libreOfficeExport = "libreoffice_export"
    }

    /// Whether any option is set: a job carrying one needs LibreOffice.
    public var isEmpty: Bool { self == OfficeOptions() }

    /// The wire names of the options that are set, in documentation order.
    public var setKeys: [String] {
        let values: [(CodingKeys, Any?)] = [
            (.exportFormFields, exportFormFields), (.exportBookmarks, exportBookmarks), (.exportNotes, exportNotes),
            (.exportNotesPages, exportNotesPages), (.losslessImageCompression, losslessImageCompression), (.quality, quality),
            (.reduceImageResolution, reduceImageResolution), (.maxImageResolution, maxImageResolution),
            (.singlePageSheets, singlePageSheets), (.pdfa, pdfa), (.pdfua, pdfua), (.libreOfficeExport, libreOfficeExport),
        ]
        return values.filter { $0.1 != nil }.map(\.0.rawValue)
    }
}
