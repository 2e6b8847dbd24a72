/// The local tools a conversion runs, by the name `/readyz` reports each under (`local.<name>`).
public enum LocalTool: String, Sendable, CaseIterable, Comparable {
    case libreOffice = "libreoffice"
    case chromium
    case calibre
    /// qpdf and Ghostscript: PDF_TO_PDF jobs and every job's operations.
    case pdf
    /// img2pdf (and, as a scan asks, heif-convert, ImageMagick, Tesseract): SCAN_TO_PDF jobs.
    case scan

    public static func < (lhs: LocalTool, rhs: LocalTool) -> Bool { lhs.rawValue < rhs.rawValue }
}
