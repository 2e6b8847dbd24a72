import Foundation
import GatewayLibraryModel
import GatewaySearchText
import PostgresNIO

// Writes to the index inside a caller's session: the catalog's transaction, so a document and
// its entry commit together, or the index's own.
extension PostgresSearchIndex {
    /// An entry written again over its old row (`ON CONFLICT … DO UPDATE SET` this): every
    /// column but `doc_seq`, which keeps the document's place among the newest, and a claim
    /// the rewrite makes moot. The catalog's filing statement writes entries the same way.
    static let rewriteEntry = """
        owner = EXCLUDED.owner, folder_id = EXCLUDED.folder_id, name = EXCLUDED.name, title = EXCLUDED.title,
        scope = EXCLUDED.scope, state = EXCLUDED.state, source = EXCLUDED.source, sha256 = EXCLUDED.sha256,
        extractor_version = EXCLUDED.extractor_version, truncated = EXCLUDED.truncated, page_rows = EXCLUDED.page_rows,
        updated_at = EXCLUDED.updated_at, words = EXCLUDED.words, claimed_until = NULL
        """

    /// Adds or replaces `entry`; a rewrite keeps the document's `doc_seq` (its place among the
    /// newest). Pages of a previous write go, whatever the new content.
    package static func write(_ entry: SearchEntry, in session: PostgresSession) async throws {
        var pages: [(number: Int, body: String, words: String)] = []
        var source: String?
        var truncated = false
        if case .text(let text, let from) = entry.content {
            source = from.rawValue
            truncated = text.truncated
            for (index, body) in text.pages.prefix(DocumentText.maxPages).enumerated() {
                // Pages without a word are not stored: nothing could find them.
                let words = SearchTokenizer.indexedWords(body)
                if !words.isEmpty { pages.append((index + 1, body, words)) }
            }
        }
        let state = entry.content.state.rawValue
        let version = source == nil ? 0 : DocumentText.extractorVersion
        let body = pages.map(\.words).joined(separator: " ")
        let rows = try await session.query(
            """
            WITH entry AS (
                INSERT INTO document_index (document_id, owner, folder_id, name, title, scope, state, source, sha256,
                    extractor_version, truncated, page_rows, updated_at, words)
                VALUES (\(entry.documentID), \(entry.owner), \(entry.folderID), \(entry.name), \(entry.title),
                    pdfgate_search_scope(\(entry.owner), \(entry.folderID)), \(state), \(source), \(entry.sha256), \(version),
                    \(truncated), \(pages.count), now(),
                    setweight(to_tsvector('simple', \(body)), 'D')
                        || setweight(to_tsvector('simple', \(SearchTokenizer.indexedWords(entry.name))), 'A')
                        || setweight(to_tsvector('simple', \(SearchTokenizer.indexedWords(entry.title ?? ""))), 'B'))
                ON CONFLICT (document_id) DO UPDATE SET \(unescaped: rewriteEntry)
                RETURNING doc_seq
            ), gone AS (DELETE FROM document_pages WHERE doc_seq IN (SELECT doc_seq FROM entry))
            SELECT doc_seq FROM entry
            """
        )
        guard !pages.isEmpty, let sequence = try rows.first?.decode(Int64.self) else { return }
        try await session.query(
            """
            INSERT INTO document_pages (doc_seq, page, body, words)
            SELECT \(sequence), page, body, to_tsvector('simple', words)
            FROM unnest(\(pages.map { Int64($0.number) })::bigint[], \(pages.map(\.body))::text[], \(pages.map(\.words))::text[])
                AS page_text(page, body, words)
            """
        )
    }

    /// Follows a rename (or a new title): the body's words stay, the name's and title's are
    /// written again. A document without an entry is left to fsck.
    package static func rename(documentID: String, name: String, title: String?, in session: PostgresSession) async throws {
        try await session.query(
            """
            UPDATE document_index SET name = \(name), title = \(title), updated_at = now(),
                words = ts_filter(words, '{d}') || setweight(to_tsvector('simple', \(SearchTokenizer.indexedWords(name))), 'A')
                    || setweight(to_tsvector('simple', \(SearchTokenizer.indexedWords(title ?? ""))), 'B')
            WHERE document_id = \(documentID)
            """
        )
    }

    /// Follows a move to `folderID` (`""` for the root): new scope tokens.
    package static func move(documentID: String, folderID: String, in session: PostgresSession) async throws {
        try await session.query(
            """
            UPDATE document_index SET folder_id = \(folderID), scope = pdfgate_search_scope(owner, \(folderID)), updated_at = now()
            WHERE document_id = \(documentID)
            """
        )
    }

    /// Follows a folder's move: every document under it (at any depth) gets the scope of its
    /// folders' new ancestry. Reads the folders' new paths, so call it after they are written.
    package static func moveFolder(id: String, in session: PostgresSession) async throws {
        try await session.query(
            """
            UPDATE document_index AS i SET scope = pdfgate_search_scope(i.owner, i.folder_id), updated_at = now()
            FROM folders AS moved, folders AS f
            WHERE moved.id = \(id) AND f.owner = moved.owner
                AND (f.path = moved.path OR (f.path > moved.path || '/' AND f.path < moved.path || '0'))
                AND i.folder_id = f.id AND i.owner = moved.owner
            """
        )
    }

    /// Forgets these documents: entries and (by cascade) pages.
    package static func delete(documentIDs: [String], in session: PostgresSession) async throws {
        guard !documentIDs.isEmpty else { return }
        try await session.query("DELETE FROM document_index WHERE document_id = ANY(\(documentIDs))")
    }

}
