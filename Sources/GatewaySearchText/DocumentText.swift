import Foundation

/// The text of a document's pages, as the index stores it: what Poppler reads from the PDF, or
/// what Tesseract recognised on pages that had none. Capped so one document cannot fill the
/// index (and a PostgreSQL tsvector stays under its 1 MiB limit).
public struct DocumentText: Sendable, Equatable {
    /// Page 1 first. A page without text is `""`; pages past the caps are absent.
    public var pages: [String]
    /// Some text was left out: a page past `maxPageBytes`, or pages past `maxDocumentBytes`.
    public var truncated: Bool

    /// UTF-8 bytes kept of one page.
    public static let maxPageBytes = 256 << 10
    /// UTF-8 bytes kept of a whole document; the pages after the one that reaches it are dropped.
    public static let maxDocumentBytes = 2 << 20
    /// Page ids are `sequence * 10,000 + page` in the SQLite index.
    public static let maxPages = 9_999
    /// Pages are separated by a form feed in the worker's file (as in `pdftotext`'s output), so
    /// a page's own form feeds become spaces.
    public static let pageSeparator: Character = "\u{0C}"
    /// Bumped when the extraction changes in a way that makes stored text stale (fsck then
    /// reports `index_stale`, and a repair re-extracts).
    public static let extractorVersion = 1

    /// Takes `pages` as they are, with `truncated` as given; `capped(_:)` applies the caps.
    public init(pages: [String], truncated: Bool = false) {
        self.pages = pages
        self.truncated = truncated
    }

    /// The pages within the caps: each page cut at a character boundary under `maxPageBytes`,
    /// and no pages after the total reaches `maxDocumentBytes`.
    public static func capped(_ pages: some Sequence<String>) -> DocumentText {
        var builder = Builder()
        for page in pages {
            guard builder.add(page) else { break }
        }
        return builder.text
    }

    /// Adds pages one at a time within the caps; the inspect worker writes them as they come.
    public struct Builder: Sendable {
        public private(set) var text = DocumentText(pages: [])
        private var bytes = 0

        public init() {}

        /// Adds the next page; false once no more pages fit (then `text.truncated` is set).
        public mutating func add(_ page: String) -> Bool {
            guard text.pages.count < DocumentText.maxPages, bytes < DocumentText.maxDocumentBytes else {
                text.truncated = true
                return false
            }
            var page = page.replacingOccurrences(of: String(DocumentText.pageSeparator), with: " ")
            let budget = min(DocumentText.maxPageBytes, DocumentText.maxDocumentBytes - bytes)
            if page.utf8.count > budget {
                page = DocumentText.prefix(of: page, utf8Bytes: budget)
                text.truncated = true
            }
            bytes += page.utf8.count
            text.pages.append(page)
            return true
        }
    }

    /// The pages joined by form feeds: the worker's file format.
    public var joined: String { pages.joined(separator: String(Self.pageSeparator)) }

    /// Reads the worker's file: pages separated by form feeds. `pageCount` (from the worker's
    /// answer) tells an empty file with no pages from one empty page.
    public static func read(path: String, pageCount: Int, truncated: Bool) throws -> DocumentText {
        guard pageCount > 0 else { return DocumentText(pages: [], truncated: truncated) }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let pages = String(decoding: data, as: UTF8.self).split(separator: pageSeparator, omittingEmptySubsequences: false).map(String.init)
        return DocumentText(pages: pages, truncated: truncated)
    }

    /// The longest prefix of `text` of at most `limit` UTF-8 bytes that ends on a character.
    static func prefix(of text: String, utf8Bytes limit: Int) -> String {
        var used = 0
        var end = text.startIndex
        for character in text {
            let size = character.utf8.count
            guard used + size <= limit else { break }
            used += size
            end = text.index(after: end)
        }
        return String(text[..<end])
    }
}
