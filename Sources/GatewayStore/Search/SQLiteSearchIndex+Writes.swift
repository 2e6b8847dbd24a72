import Foundation
import GRDB
import GatewayLibraryModel
import GatewaySearchText

// Writes to the index inside a caller's transaction: the catalog's, so a document and its entry
// commit together, or the index's own.
//
// FTS5 with external content indexes what it is given and, to remove a row, must be given the
// same text again: each change below first deletes the row's tokens as the view reads them now,
// then changes the rows, then indexes the row as the view reads it after.
extension SQLiteSearchIndex {
    /// Adds or replaces `entry`; a rewrite keeps the document's `doc_seq` (its place among the
    /// newest). Text of a previous write goes, whatever the new content.
    package static func write(_ entry: SearchEntry, in db: Database) throws {
        let scope = try SearchFolders.scopeText(owner: entry.owner, folderID: entry.folderID, in: db)
        var text: DocumentText?
        var source: TextSource?
        if case .text(let pages, let from) = entry.content {
            text = pages
            source = from
        }
        let columns: [(String, (any DatabaseValueConvertible)?)] = [
            ("owner", entry.owner), ("folder_id", entry.folderID), ("name", entry.name), ("title", entry.title), ("scope", scope),
            ("state", entry.content.state.rawValue), ("source", source?.rawValue), ("sha256", entry.sha256),
            ("extractor_version", text == nil ? 0 : DocumentText.extractorVersion), ("truncated", text?.truncated ?? false),
            ("updated_at", Date()),
        ]
        let sequence: Int64
        if let existing = try Self.sequence(of: entry.documentID, in: db) {
            try unindexDocument(existing, in: db)
            try removePages(existing, in: db)
            try db.execute(
                sql: "UPDATE document_index SET \(columns.map { $0.0 + " = ?" }.joined(separator: ", ")) WHERE doc_seq = ?",
                arguments: StatementArguments(columns.map(\.1) + [existing as (any DatabaseValueConvertible)?])
            )
            sequence = existing
        } else {
            try db.execute(
                sql: """
                    INSERT INTO document_index (document_id, \(columns.map(\.0).joined(separator: ", ")))
                    VALUES (?, \(databaseQuestionMarks(count: columns.count)))
                    """,
                arguments: StatementArguments([entry.documentID as (any DatabaseValueConvertible)?] + columns.map(\.1))
            )
            sequence = db.lastInsertedRowID
        }
        if let text { try insertPages(text, sequence, in: db) }
        try indexDocument(sequence, in: db)
    }

    /// Follows a rename (or a new title). A document without an entry is left to fsck.
    package static func rename(documentID: String, name: String, title: String?, in db: Database) throws {
        guard let sequence = try sequence(of: documentID, in: db) else { return }
        try rewrite(sequence, in: db) {
            try db.execute(sql: "UPDATE document_index SET name = ?, title = ? WHERE doc_seq = ?", arguments: [name, title, sequence])
        }
    }

    /// Follows a move to `folderID` (`""` for the root): new scope tokens.
    package static func move(documentID: String, folderID: String, in db: Database) throws {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT doc_seq, owner FROM document_index WHERE document_id = ?"),
                arguments: [documentID]
            )
        else { return }
        let sequence: Int64 = row[0]
        let scope = try SearchFolders.scopeText(owner: row[1], folderID: folderID, in: db)
        try rewrite(sequence, in: db) {
            try db.execute(
                sql: "UPDATE document_index SET folder_id = ?, scope = ? WHERE doc_seq = ?",
                arguments: [folderID, scope, sequence]
            )
        }
    }

    /// Follows a folder's move: every document under it (at any depth) gets the scope of its
    /// folders' new ancestry. Reads the folders' new paths, so call it after they are written.
    package static func moveFolder(id: String, in db: Database) throws {
        guard let folder = try Row.fetchOne(db, sql: "SELECT owner, path FROM folders WHERE id = ?", arguments: [id]) else { return }
        let (owner, path): (String, String) = (folder[0], folder[1])
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT i.doc_seq, i.folder_id, i.scope FROM document_index AS i JOIN folders AS f ON f.id = i.folder_id
                WHERE f.owner = ? AND i.owner = ? AND (f.path = ? OR (f.path > ? AND f.path < ?))
                """,
            arguments: [owner, owner, path, path + "/", path + "0"]
        )
        var scopes: [String: String] = [:]
        for row in rows {
            let (sequence, folderID, current): (Int64, String, String) = (row[0], row[1], row[2])
            let scope = try scopes[folderID] ?? SearchFolders.scopeText(owner: owner, folderID: folderID, in: db)
            scopes[folderID] = scope
            guard scope != current else { continue }
            try rewrite(sequence, in: db) {
                try db.execute(sql: "UPDATE document_index SET scope = ? WHERE doc_seq = ?", arguments: [scope, sequence])
            }
        }
    }

    /// Forgets these documents: tokens, pages and entries.
    package static func delete(documentIDs: [String], in db: Database) throws {
        for id in documentIDs {
            guard let sequence = try sequence(of: id, in: db) else { continue }
            try unindexDocument(sequence, in: db)
            try removePages(sequence, in: db)
            try db.execute(sql: "DELETE FROM document_index WHERE doc_seq = ?", arguments: [sequence])
        }
    }

    // MARK: - Rows and tokens

    static func sequence(of documentID: String, in db: Database) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT doc_seq FROM document_index WHERE document_id = ?"), arguments: [documentID])
    }

    /// The document's tokens out, `change`, its tokens back in.
    private static func rewrite(_ sequence: Int64, in db: Database, _ change: () throws -> Void) throws {
        try unindexDocument(sequence, in: db)
        try change()
        try indexDocument(sequence, in: db)
    }

    private static func indexDocument(_ sequence: Int64, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO document_fts (rowid, name, title, body, scope)
                SELECT doc_seq, name, title, body, scope FROM document_fts_source WHERE doc_seq = ?
                """,
            arguments: [sequence]
        )
    }

    private static func unindexDocument(_ sequence: Int64, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO document_fts (document_fts, rowid, name, title, body, scope)
                SELECT 'delete', doc_seq, name, title, body, scope FROM document_fts_source WHERE doc_seq = ?
                """,
            arguments: [sequence]
        )
    }

    /// Pages without a word are not stored: nothing could find them.
    private static func insertPages(_ text: DocumentText, _ sequence: Int64, in db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT INTO document_pages (id, page, body) VALUES (?, ?, ?)")
        for (index, body) in text.pages.prefix(DocumentText.maxPages).enumerated() {
            guard body.unicodeScalars.contains(where: SearchTokenizer.isWordScalar) else { continue }
            try statement.execute(arguments: [pageID(sequence, index + 1), index + 1, body])
        }
        let pages = pageRange(sequence)
        try db.execute(
            sql: "INSERT INTO page_fts (rowid, body) SELECT id, body FROM document_pages WHERE id BETWEEN ? AND ?",
            arguments: [pages.lowerBound, pages.upperBound]
        )
    }

    private static func removePages(_ sequence: Int64, in db: Database) throws {
        let pages = pageRange(sequence)
        try db.execute(
            sql: "INSERT INTO page_fts (page_fts, rowid, body) SELECT 'delete', id, body FROM document_pages WHERE id BETWEEN ? AND ?",
            arguments: [pages.lowerBound, pages.upperBound]
        )
        try db.execute(sql: "DELETE FROM document_pages WHERE id BETWEEN ? AND ?", arguments: [pages.lowerBound, pages.upperBound])
    }

    static func pageID(_ sequence: Int64, _ page: Int) -> Int64 { sequence * 10_000 + Int64(page) }

    static func pageRange(_ sequence: Int64) -> ClosedRange<Int64> { pageID(sequence, 0)...pageID(sequence, DocumentText.maxPages) }
}
