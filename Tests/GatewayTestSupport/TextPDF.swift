import Foundation

/// PDFs of known text, one string per page, written by Ghostscript from PostScript: real
/// text layers that Poppler reads back, made in milliseconds and without a browser.
public enum TextPDF {
    /// Writes a PDF at `path` whose page *n* shows `pages[n]` (ASCII letters, digits, spaces).
    public static func make(_ path: String, pages: [String]) async throws {
        let body: String = pages.map { (text: String) -> String in
            let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "(", with: "\\(")
                .replacingOccurrences(of: ")", with: "\\)")
            return "/Helvetica findfont 14 scalefont setfont 72 720 moveto (\(escaped)) show showpage"
        }.joined(separator: " ")
        let result = try await run("gs", ["-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pdfwrite", "-o", path, "-c", body])
        guard result.status == 0 else { throw TextPDFError(message: "gs could not write \(path): \(result.stderr)") }
    }
}

struct TextPDFError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
