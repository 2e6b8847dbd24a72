import Foundation
import GatewayLibraryModel

/// What the library files for a PDF a user brings: the inspector's reading, or, for one Poppler
/// cannot open because it is encrypted with a password we do not have or damaged, the PDF as it
/// came with what its bytes tell and a warning naming what could not be read. A library keeps
/// a user's documents (a bank statement with a password, a scan cut short); only the jobs that
/// must read such a file refuse it, saying why.
public enum KeptPDF {
    /// The info to file `path` with; rethrows what is no PDF at all, and what the inspector gave
    /// up on for its own safety (a time or memory limit).
    public static func info(of path: String, inspector: any PDFInspector) async throws -> PDFInfo {
        do {
            return try await inspector.inspect(path: path)
        } catch let error as InspectionError where error.kind == .encrypted || error.kind == .damaged {
            guard let skim = PDFSkim(path: path) else { throw error }
            let unread = "its text, pages and metadata cannot be read, so it has no thumbnail and search does not find its words"
            let warning =
                error.kind == .encrypted
                ? "encrypted with a password this server does not have: kept as it came; \(unread); operations on it need the password"
                : "damaged (\(error.message)): kept as it came; \(unread); repair it (e.g. `qpdf in.pdf out.pdf`) and replace it to read it whole"
            return PDFInfo(
                pageCount: skim.pageCount ?? 0,
                pdfVersion: skim.version,
                pageWidth: 0,
                pageHeight: 0,
                encrypted: error.kind == .encrypted || skim.encrypted,
                warning: warning
            )
        }
    }
}
