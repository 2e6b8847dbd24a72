import Foundation

/// One entry of a PDF's outline (its bookmarks): a title that opens a page, with the entries
/// nested under it. On the wire it has Gotenberg's shape, `{"title": "Index", "page": 1,
/// "children": [...]}`, children left out when there are none.
public struct PDFBookmark: Sendable, Equatable, Codable {
    public var title: String
    /// 1 is the first page.
    public var page: Int
    public var children: [PDFBookmark]

    public init(title: String, page: Int, children: [PDFBookmark] = []) {
        self.title = title
        self.page = page
        self.children = children
    }

    enum CodingKeys: String, CodingKey {
        case title, page, children
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        page = try container.decode(Int.self, forKey: .page)
        children = try container.decodeIfPresent([PDFBookmark].self, forKey: .children) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(page, forKey: .page)
        if !children.isEmpty { try container.encode(children, forKey: .children) }
    }

    /// Most entries an outline may have, side by side and in all, and how deep it may nest:
    /// enough for any book, and a bound on what one request can make qpdf write (and on the
    /// length of a one-shot create's `operations` query).
    public static let maxCount = 10_000
    public static let maxSiblings = 500
    public static let maxDepth = 32

    /// Refuses an outline a reader could not use: an empty or overlong title, a page below 1,
    /// too many entries or too deep. Pages past the document's end are checked against its
    /// page count (`[PDFOperation].checkPages`).
    public static func check(_ items: [PDFBookmark], field: String) throws(OperationError) {
        var count = 0
        func visit(_ items: [PDFBookmark], at path: String, depth: Int) throws(OperationError) {
            guard depth <= maxDepth else {
                throw OperationError(.invalid, code: "invalid_operation", "\(path) nests bookmarks deeper than \(maxDepth) levels")
            }
            guard items.count <= maxSiblings else {
                throw OperationError(
                    .invalid,
                    code: "invalid_operation",
                    "\(path) has \(items.count) bookmarks side by side; at most \(maxSiblings) (nest them)"
                )
            }
            for (index, item) in items.enumerated() {
                let at = "\(path)[\(index)]"
                count += 1
                guard count <= maxCount else {
                    throw OperationError(.invalid, code: "invalid_operation", "\(field) has more than \(maxCount) bookmarks")
                }
                guard !item.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, item.title.unicodeScalars.count <= 1000 else {
                    throw OperationError(.invalid, code: "invalid_operation", "\(at).title needs 1 to 1000 characters")
                }
                guard item.page >= 1, item.page <= PageSelection.maxPage else {
                    throw OperationError(
                        .invalid,
                        code: "invalid_operation",
                        "\(at).page must be 1 to \(PageSelection.maxPage) (1 is the first page)"
                    )
                }
                try visit(item.children, at: at + ".children", depth: depth + 1)
            }
        }
        try visit(items, at: field, depth: 1)
    }

    /// Refuses an outline that opens a page past a document of `pageCount` pages.
    public static func checkPages(_ items: [PDFBookmark], pageCount: Int, field: String) throws(OperationError) {
        let last = lastPage(of: items)
        guard last <= pageCount else {
            throw OperationError(
                .outOfRange,
                code: "page_range_out_of_bounds",
                "\(field) opens page \(last), but the document has \(pageCount) page\(pageCount == 1 ? "" : "s")"
            )
        }
    }

    /// The highest page an outline opens (0 for none).
    private static func lastPage(of items: [PDFBookmark]) -> Int {
        items.map { max($0.page, lastPage(of: $0.children)) }.max() ?? 0
    }
}
