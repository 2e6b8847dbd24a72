import Foundation
import GatewayLibraryModel

extension Library {
    /// Largest page a caller may ask for.
    public static let maxPageSize = 1000

    /// One page of documents, keyset-paginated on (sort field, id) so every page costs the same
    /// at 100 documents or 100,000.
    public func listDocuments(_ query: DocumentQuery) async throws(LibraryError) -> DocumentPage {
        guard (1...Self.maxPageSize).contains(query.limit) else {
            throw LibraryError(.invalidArgument, "limit \(query.limit) is out of range; use 1 to \(Self.maxPageSize)")
        }
        if let text = query.text { return try await searchDocuments(query, text) }
        let after = try query.cursor.map { cursor throws(LibraryError) in try ListCursor(decoding: cursor, sort: query.sort) }
        let lookup = try Self.lookup(query.folder)
        return try await read { catalog in
            guard var rows = try await catalog.listDocuments(query, in: lookup, after: after)?.documents else {
                throw Self.folderNotFound(query.folder)
            }
            var next: String?
            if rows.count > query.limit {
                rows.removeLast()
                let last = rows[rows.count - 1].record
                next = ListCursor(sort: query.sort, value: catalog.sortValue(of: last, query.sort.field), id: last.id).encoded
            }
            return DocumentPage(documents: rows.map(\.document), nextCursor: next)
        }
    }
}
