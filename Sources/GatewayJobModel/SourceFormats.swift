import Foundation

/// The file extensions a job type accepts, checked when the job is created so a file no
/// converter can read is refused at once (415) rather than after an upload and a failed run.
public enum SourceFormats {
    /// Calibre's input plugins this gateway routes ebooks to.
    public static let ebook: Set<String> = [
        "epub", "kepub", "mobi", "azw", "azw3", "azw4", "fb2", "fbz", "prc", "pdb", "lit", "lrf", "snb", "tcr",
    ]

    /// What LibreOffice imports (Writer, Calc, Impress, Draw, the legacy binary and StarOffice
    /// formats, plain text and images), plus HTML, which Chromium prints.
    public static let document: Set<String> = [
        // Writer
        "doc", "docx", "docm", "dot", "dotx", "dotm", "odt", "ott", "fodt", "rtf", "txt", "text", "wpd", "wps", "abw", "sxw", "stw", "xml",
        // Calc
        "xls", "xlsx", "xlsm", "xlsb", "xlt", "xltx", "xltm", "ods", "ots", "fods", "csv", "tsv", "sxc", "dbf", "wk1", "123",
        // Impress
        "ppt", "pptx", "pptm", "pps", "ppsx", "ppsm", "pot", "potx", "potm", "odp", "otp", "fodp", "sxi", "key",
        // Draw and images
        "odg", "otg", "fodg", "vsd", "vsdx", "svg", "png", "jpg", "jpeg", "gif", "bmp", "tif", "tiff", "webp",
        // Chromium: a page, or a page with its files (`HTMLBundle`: index.html at the zip's root)
        "html", "htm", "xhtml", "zip",
    ]

    /// Page images a scan takes (`SCAN_TO_PDF`); a file's content decides, its name only routes it.
    public static let image: Set<String> = ["jpg", "jpeg", "jpe", "png", "tif", "tiff", "webp", "heic", "heif"]

    /// The document formats Chromium prints rather than LibreOffice; a `zip` is an HTML bundle.
    public static let html: Set<String> = ["html", "htm", "xhtml", "zip"]

    /// True when some job type converts files with extension `ext` (lowercase, no dot).
    public static func isConverted(_ ext: String) -> Bool {
        ext == "pdf" || document.contains(ext) || ebook.contains(ext) || image.contains(ext)
    }

    /// The name of a file that came without one (a raw body with no `Content-Disposition`, a
    /// form part with no `filename`): `document` plus the extension its media type says, else
    /// what the job's type implies — a PDF for PDF_TO_PDF, no extension for an office document
    /// (LibreOffice recognises it by its content). Nil when nothing says it: an ebook's format
    /// cannot be guessed from its bytes by the converter.
    public static func unnamedFile(type: JobType?, mediaType: String?) -> String? {
        if let ext = mediaType.flatMap(MediaTypes.fileExtension(of:)) { return "document." + ext }
        switch type {
        case .pdfToPDF: return "document.pdf"
        case .docToPDF, nil: return "document"
        case .scanToPDF: return "scan"  // the bytes say which image it is
        case .ebookToPDF, .urlToPDF, .screenshot: return nil
        }
    }

    /// Nil when `filename` suits `type`, else why not, naming what would. A name without an
    /// extension passes: LibreOffice recognises a document by its content.
    public static func problem(with filename: String, for type: JobType) -> String? {
        let ext = (filename as NSString).pathExtension.lowercased()
        let accepted: Set<String>
        switch type {
        case .urlToPDF: return nil
        case .docToPDF:
            if ext.isEmpty { return nil }
            accepted = document
        case .ebookToPDF: accepted = ebook
        case .pdfToPDF: accepted = ["pdf"]
        case .screenshot: accepted = html
        case .scanToPDF:
            if ext.isEmpty { return nil }
            accepted = image
        }
        guard !accepted.contains(ext) else { return nil }
        let what = ext.isEmpty ? "'\(filename)' has no extension" : "'.\(ext)' is not a format \(type.rawValue) converts"
        let hint = type == .docToPDF && ebook.contains(ext) ? "; ebooks go in EBOOK_TO_PDF jobs" : ""
        return "\(what)\(hint); accepted: \(accepted.sorted().joined(separator: ", "))"
    }
}
