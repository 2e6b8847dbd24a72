import Foundation
import GRDB
import GatewaySearchText

/// The search index's tables in the store's SQLite database (migration `v9-search`).
///
/// - `document_index`: one row per document, its `doc_seq` the full-text row id, so "newest"
///   is a rowid order FTS5 walks for free. Name and title are copied here so the index can
///   delete its old tokens without depending on whether the catalog already wrote the new name.
/// - `document_pages`: each page's text, stored once; id = `doc_seq * 10,000 + page`, so one
///   document's pages are a rowid range.
/// - `document_fts`: name, title, all pages (joined by form feeds) and the scope tokens of each
///   document, an external-content FTS5 table over the view `document_fts_source`: the text is
///   not stored a second time, which would grow the store by the whole of its text.
/// - `page_fts`: each page, over `document_pages`, for the page number and snippet of a hit.
///
/// External content means FTS5 trusts us to remove exactly the tokens it indexed: every change
/// deletes a row's tokens (read back from the view) before the view's rows change.
enum SearchSchema {
    /// Case and accents folded ("muller" finds "Müller"), like PostgreSQL's `unaccent`.
    static let tokenizer = "unicode61 remove_diacritics 2"

    static func migrate(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE document_index (
                    doc_seq INTEGER PRIMARY KEY,
                    document_id TEXT NOT NULL UNIQUE,
                    owner TEXT NOT NULL,
                    folder_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    title TEXT,
                    scope TEXT NOT NULL,
                    state TEXT NOT NULL,
                    source TEXT,
                    sha256 TEXT NOT NULL,
                    extractor_version INTEGER NOT NULL,
                    truncated BOOLEAN NOT NULL,
                    updated_at DATETIME NOT NULL
                );
                CREATE INDEX document_index_state ON document_index(state, doc_seq);
                CREATE INDEX document_index_owner_state ON document_index(owner, state);
                CREATE INDEX document_index_folder ON document_index(folder_id);
                CREATE TABLE document_pages (
                    id INTEGER PRIMARY KEY,
                    page INTEGER NOT NULL,
                    body TEXT NOT NULL
                );
                CREATE VIEW document_fts_source AS
                    SELECT i.doc_seq, i.name, COALESCE(i.title, '') AS title,
                        COALESCE((SELECT group_concat(p.body, char(12)) FROM (
                            SELECT body FROM document_pages WHERE id BETWEEN i.doc_seq * 10000 AND i.doc_seq * 10000 + 9999 ORDER BY id
                        ) AS p), '') AS body,
                        i.scope
                    FROM document_index AS i;
                CREATE VIRTUAL TABLE document_fts USING fts5(
                    name, title, body, scope,
                    content = 'document_fts_source', content_rowid = 'doc_seq',
                    tokenize = '\(tokenizer)', prefix = '3'
                );
                CREATE VIRTUAL TABLE page_fts USING fts5(
                    body, content = 'document_pages', content_rowid = 'id',
                    tokenize = '\(tokenizer)', prefix = '3'
                );
                """
        )
        try enqueueExistingDocuments(db)
    }

    /// Every ready document gets a pending entry, oldest first so the newest stay newest: found
    /// by name and title at once, by its text once the backfill has read it. Only rows and names
    /// here; the text comes later, in the background.
    private static func enqueueExistingDocuments(_ db: Database) throws {
        var folders: [String: (owner: String, path: String)] = [:]
        var folderIDs: [String: String] = [:]  // owner NUL path → id
        for row in try Row.fetchAll(db, sql: "SELECT id, owner, path FROM folders") {
            let (id, owner, path): (String, String, String) = (row[0], row[1], row[2])
            folders[id] = (owner, path)
            folderIDs[owner + "\u{0}" + path] = id
        }
        let now = Date()
        let documents = try Row.fetchCursor(
            db,
            sql: "SELECT id, owner, folder_id, name, title, sha256 FROM documents WHERE state = 'ready' ORDER BY created_at, id"
        )
        while let row = try documents.next() {
            let (id, owner, folderID): (String, String, String) = (row[0], row[1], row[2])
            var chain: [String] = []
            if let folder = folders[folderID] {
                chain = SearchFolders.pathAndAncestors(folder.path).compactMap { folderIDs[owner + "\u{0}" + $0] }
            } else if !folderID.isEmpty {
                chain = [folderID]
            }
            let scope = SearchScopeTokens.text(SearchScopeTokens.tokens(owner: owner, folderID: folderID, folderAndAncestors: chain))
            try db.execute(
                sql: """
                    INSERT INTO document_index (document_id, owner, folder_id, name, title, scope, state, source, sha256,
                        extractor_version, truncated, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, 'pending', NULL, ?, 0, 0, ?)
                    """,
                arguments: [id, owner, folderID, row[3] as String, row[4] as String?, scope, row[5] as String, now]
            )
        }
        // The tables were empty: indexing everything from the view is the bulk insert.
        try db.execute(sql: "INSERT INTO document_fts(document_fts) VALUES ('rebuild')")
    }
}
