import Foundation

/// What a PDF's raw bytes say without a parser: its version and, when the page tree's root is
/// in plain sight (not inside a compressed object stream), its page count. Enough to describe a
/// PDF Poppler cannot open, which the library keeps as it came.
struct PDFSkim {
    var version: String
    var pageCount: Int?
    var encrypted: Bool

    /// Nil when the file does not start like a PDF (`%PDF-` in its first kilobyte).
    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 1024), let headText = String(data: head, encoding: .isoLatin1),
            let marker = headText.range(of: "%PDF-")
        else { return nil }
        version = String(headText[marker.upperBound...].prefix { $0.isNumber || $0 == "." })
        var count: Int?
        var encrypted = false
        // In pieces, each overlapping the last by a kilobyte, so a dictionary cut in two is seen whole once.
        var carry = headText
        while true {
            for match in carry.matches(of: Self.pagesCount) {
                if let digits = match.output.1 ?? match.output.2, let n = Int(digits) { count = max(count ?? 0, n) }
            }
            if carry.contains("/Encrypt") { encrypted = true }
            guard let chunk = try? handle.read(upToCount: 4 << 20), !chunk.isEmpty else { break }
            carry = String(carry.suffix(1024)) + (String(data: chunk, encoding: .isoLatin1) ?? "")
        }
        pageCount = count
        self.encrypted = encrypted
    }

    /// `/Type /Pages … /Count N` or `/Count N … /Type /Pages` within one dictionary's reach; the
    /// root of the page tree has the largest count.
    nonisolated(unsafe) private static let pagesCount =
        #/(?:/Type\s*/Pages\b[^>]{0,400}?/Count\s+(\d+))|(?:/Count\s+(\d+)[^>]{0,400}?/Type\s*/Pages\b)/#
}
