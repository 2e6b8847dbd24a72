import Foundation

/// The text Tesseract recognised on the pages an `ocr` operation read, kept beside the PDF it
/// wrote (`<pdf>.ocr.json`) for the search index: for those pages it is the text to store, not
/// Poppler's, which splits the words of a glyphless layer in reading order ("invoic e").
public struct OCRPageText: Sendable, Equatable, Codable {
    /// One OCRed page: its number in the PDF (1 is the first) and what Tesseract read there.
    public struct Page: Sendable, Equatable, Codable {
        public var page: Int
        public var text: String

        public init(page: Int, text: String) {
            self.page = page
            self.text = text
        }
    }

    /// What Tesseract was told to read (`eng`, `deu`).
    public var languages: [String]
    /// In page order; pages that were skipped (they had text) are absent.
    public var pages: [Page]

    public init(languages: [String], pages: [Page]) {
        self.languages = languages
        self.pages = pages
    }

    /// Where the text of the PDF at `pdf` is kept.
    public static func sidecar(of pdf: String) -> String { pdf + ".ocr.json" }

    /// Writes it beside the PDF at `pdf`.
    public func write(beside pdf: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: Self.sidecar(of: pdf)))
    }

    /// The text kept beside the PDF at `pdf`, or nil when it was not OCRed (or the file is unreadable).
    public static func read(beside pdf: String) -> OCRPageText? {
        guard let data = FileManager.default.contents(atPath: sidecar(of: pdf)) else { return nil }
        return try? JSONDecoder().decode(OCRPageText.self, from: data)
    }

    /// Keeps the text of `from` beside `to` too: for an operation after `ocr` that leaves the pages
    /// where they are (metadata, optimize, PDF/A…), so the text reaches the filed document.
    public static func carry(from: String, to: String) {
        guard from != to, FileManager.default.fileExists(atPath: sidecar(of: from)) else { return }
        try? FileManager.default.removeItem(atPath: sidecar(of: to))
        try? FileManager.default.copyItem(atPath: sidecar(of: from), toPath: sidecar(of: to))
    }
}
