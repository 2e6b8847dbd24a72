import CPoppler
import Foundation
import GatewayLibraryModel
import GatewaySearchText

/// Writes a document's text, page by page, for the search index: Poppler's text of each page
/// (`poppler_page_get_text`, the reading order `pdftotext` gives without `-raw`), joined by form
/// feeds, within `DocumentText`'s caps. Runs in the inspect worker, on the document it already
/// has open, so the text costs no second parse.
enum PageTextWriter {
    static func write(_ document: OpaquePointer, pageCount: Int, to path: String) -> PageTextResult {
        var builder = DocumentText.Builder()
        for index in 0..<pageCount {
            guard builder.add(pageText(document, index)) else { break }
        }
        let text = builder.text
        do {
            try Data(text.joined.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            return PageTextResult(pages: 0, truncated: text.truncated, failure: "the text could not be written to \(path): \(error)")
        }
        return PageTextResult(pages: text.pages.count, truncated: text.truncated)
    }

    /// A page Poppler cannot read counts as a page without text, so page numbers stay right.
    private static func pageText(_ document: OpaquePointer, _ index: Int) -> String {
        guard let page = poppler_document_get_page(document, Int32(index)) else { return "" }
        defer { pdfgate_unref_page(page) }
        guard let text = poppler_page_get_text(page) else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }
}
