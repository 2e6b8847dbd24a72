import Foundation
import GatewayLibraryModel
import GatewaySearchText
import GatewayStore
import GatewayTestSupport

/// The search index implementations, for the contract suite that runs unchanged on each: FTS5
/// in the embedded store's SQLite file, a `tsvector` in a throwaway PostgreSQL database.
enum SearchIndexBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    var description: String { rawValue }

    /// An empty library of this backend and its index.
    func make() async throws -> SearchFixture {
        let library = try await LibraryFixture(self == .sqlite ? .sqlite : .postgres)
        return SearchFixture(library: library, index: library.library.searchIndex)
    }
}

/// A real library and its index. The catalog follows filings, renames, moves and deletes
/// in its own transactions, but files a document's text as pending until the filing path passes
/// the text along, so `file` writes the text itself.
struct SearchFixture: Sendable {
    let library: LibraryFixture
    let index: any SearchIndex

    /// The PDF filed for every document: without a title, so only what a test writes matches.
    static let pdf = "no-metadata.pdf"

    /// Files a document named `name` and indexes `pages` as its text.
    @discardableResult
    func file(_ name: String, owner: String = "alice", folder: FolderReference = .root, pages: [String]?) async throws -> Document {
        let document = try await library.file(Self.pdf, owner: owner, folder: folder, name: name)
        try await index.write(entry(for: document, content: pages.map { SearchContent.text(DocumentText(pages: $0), source: .pdf) } ?? .pending))
        return document
    }

    func entry(for document: Document, content: SearchContent) -> SearchEntry {
        SearchEntry(
            documentID: document.id.lowercased,
            owner: document.owner,
            folderID: document.folderID?.lowercased ?? "",
            name: document.name,
            title: document.info.title,
            sha256: document.sha256,
            content: content
        )
    }

    /// The ids of every hit, all pages followed.
    func search(_ text: String, owner: String = "alice", folder: Folder? = nil, recursive: Bool = true) async throws -> [SearchHit] {
        let scope = SearchScope(owner: owner, folderID: folder?.id.lowercased, recursive: recursive)
        var hits: [SearchHit] = []
        var after: SearchCursor?
        repeat {
            let page = try await index.search(SearchRequest(query: try SearchQuery(parsing: text), scope: scope, after: after, limit: 50))
            hits += page.hits
            after = page.next
        } while after != nil
        return hits
    }

    /// The names of the documents `text` finds, sorted (when only which, not the order, matters).
    func names(_ text: String, owner: String = "alice", folder: Folder? = nil, recursive: Bool = true) async throws -> [String] {
        let hits = try await search(text, owner: owner, folder: folder, recursive: recursive)
        var names: [String] = []
        for hit in hits {
            names.append(try await library.library.document(id: UUID(uuidString: hit.documentID)!, owner: owner).name)
        }
        return names.sorted()
    }
}
