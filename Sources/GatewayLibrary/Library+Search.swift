import Foundation
import GatewayLibraryModel
import GatewaySearchText

extension Library {
    /// Tells the indexer a document's text waits to be read.
    func textFiled() {
        lastFiled.withLock { $0 = .now }
        textWaiting.continuation.yield()
    }

    /// A page of the owner's documents that match `text`, best first, each with its hit (page,
    /// snippet).
    func searchDocuments(_ query: DocumentQuery, _ text: String) async throws(LibraryError) -> DocumentPage {
        let parsed: SearchQuery
        do {
            parsed = try SearchQuery(parsing: text)
        } catch {
            throw LibraryError(.invalidQuery, error.message)
        }
        let after = try query.cursor.map { cursor throws(LibraryError) in try SearchCursor(decoding: cursor) }
        let lookup = try Self.lookup(query.folder)
        return try await read { catalog in
            var folderID: String?
            if lookup != .root {
                folderID = try await resolveFolder(owner: query.owner, query.folder)?.id
            }
            let scope = SearchScope(owner: query.owner, folderID: folderID, recursive: query.recursive)
            let found = try await searchIndex.search(SearchRequest(query: parsed, scope: scope, after: after, limit: query.limit))
            // The hits' rows in one read; a document deleted since the search is left out.
            let rows = try await catalog.documents(ids: found.hits.map(\.documentID), owner: query.owner)
            let byID = Dictionary(rows.map { ($0.record.id, $0.document) }, uniquingKeysWith: { first, _ in first })
            let pairs = found.hits.compactMap { hit in byID[hit.documentID].map { ($0, hit) } }
            return DocumentPage(
                documents: pairs.map(\.0),
                nextCursor: found.next?.encoded,
                search: DocumentSearch(hits: pairs.map(\.1), rankedAmong: found.rankedAmong, capped: found.capped, pending: found.pending)
            )
        }
    }
}
