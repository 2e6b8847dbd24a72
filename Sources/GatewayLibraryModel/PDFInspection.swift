import GatewaySearchText

/// What one inspection found: the PDF's facts and, when asked for, how its text was written.
public struct PDFInspection: Sendable, Equatable {
    public var info: PDFInfo
    /// nil when no text was asked for, or the inspector cannot extract text.
    public var text: PageTextResult?

    public init(info: PDFInfo, text: PageTextResult? = nil) {
        self.info = info
        self.text = text
    }
}

/// How the pages' text went to the file the inspection was given (see `DocumentText` for the
/// format and the caps). Text is never a reason to refuse a PDF: a failure to write it is
/// reported here, and the document is filed all the same.
public struct PageTextResult: Sendable, Equatable, Codable {
    /// Pages in the file (fewer than the PDF's when `truncated` stopped early).
    public var pages: Int
    public var truncated: Bool
    /// Why no text file was written; nil when it was.
    public var failure: String?

    public init(pages: Int, truncated: Bool, failure: String? = nil) {
        self.pages = pages
        self.truncated = truncated
        self.failure = failure
    }

    /// Reads the file this result describes; nil when it failed.
    public func read(path: String) throws -> DocumentText? {
        guard failure == nil else { return nil }
        return try DocumentText.read(path: path, pageCount: pages, truncated: truncated)
    }
}
